import { sealedWithNewKey } from '../support/intake-commands';
import { createSecretKey, randomBytes } from 'node:crypto';
import { LeadOpener } from '../../src/processor/lead-opener';
import { lookupHash, phoneBucket } from '../../src/shared/crypto/lookup-hash';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import type { IntakeCommand } from '../../src/shared/schemas';

const hashKey = createSecretKey(randomBytes(32));
const keyring = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
const opener = new LeadOpener(keyring, hashKey);

// A command as the processor has it once its data key is found (dek_enc inline).
function command(lead: { phone: string; email?: string }): { cmd: IntakeCommand; bucket: string } {
  const { record, key, bucket } = sealedWithNewKey(
    { external_id: 'e', ip: '198.51.100.7', ...lead },
    keyring,
    hashKey,
    new Date(),
  );
  const cmd = { lead: { ...record, dek_enc: key.dek_enc } } as IntakeCommand;
  return { cmd, bucket };
}

describe('LeadOpener', () => {
  it('derives from the opened lead the dedup hashes the command does not carry, the ones the ingress keyed it by', () => {
    const { cmd, bucket } = command({ phone: '+14155552671', email: 'a@b.de' });
    const hashes = {
      phone_hash: lookupHash(hashKey, 'phone', '+14155552671'),
      email_hash: lookupHash(hashKey, 'email', 'a@b.de'),
    };
    expect(opener.open(cmd)).toEqual({ cmd, ip: '198.51.100.7', phone: '+14155552671', email: 'a@b.de', hashes });
    expect(opener.hashes(cmd)).toEqual(hashes);
    expect(phoneBucket(hashes.phone_hash)).toBe(bucket);
    expect(JSON.stringify(cmd)).not.toContain(hashes.phone_hash);
    expect(JSON.stringify(cmd)).not.toContain(hashes.email_hash);
  });

  it('has no email hash without an email', () => {
    expect(opener.hashes(command({ phone: '+14155552671' }).cmd)).toEqual({
      phone_hash: lookupHash(hashKey, 'phone', '+14155552671'),
      email_hash: null,
    });
  });

  it('cannot open a command without its data key', () => {
    const { cmd } = command({ phone: '+14155552671' });
    const { dek_enc: _gone, ...lead } = cmd.lead;
    expect(() => opener.hashes({ ...cmd, lead })).toThrow();
  });
});
