import type { KeyObject } from 'node:crypto';
import { leadCipher } from '../shared/crypto/data-key';
import { lookupHash } from '../shared/crypto/lookup-hash';
import { openPersonal } from '../shared/crypto/personal-data';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { LeadDoc } from '../shared/mongo/documents';
import type { IntakeCommand } from '../shared/schemas';

// The keyed hashes dedup claims and the stored lead are looked up by.
export type DedupHashes = Required<Pick<LeadDoc, 'phone_hash' | 'email_hash'>>;

// What the processor reads of a command's lead, opened with its own data key (the command carries
// it, dek_enc, once IntakeBatch has found it): the facts the fraud signals score and the dedup hashes.
export interface OpenedLead {
  cmd: IntakeCommand;
  ip: string; // for the IP rule; never stored or logged in clear
  phone: string;
  email: string | null;
  hashes: DedupHashes;
}

// The dedup hashes never travel: a command carries only what the lead's data key opens, so
// destroying the key leaves no hash on Kafka for a holder of HASH_KEY to reverse. They are derived
// here from the normalised phone and email, exactly as the ingress hashed the phone for the bucket.
export class LeadOpener {
  constructor(
    private readonly keyring: PiiCipher,
    private readonly hashKey: KeyObject,
  ) {}

  open(cmd: IntakeCommand): OpenedLead {
    const cipher = leadCipher(this.keyring, cmd.lead);
    const { ip } = openPersonal(cipher, cmd.lead.personal_enc);
    return { cmd, ip, ...this.contact(cipher, cmd) };
  }

  // The hashes alone (a command given up on, whose claims are given back).
  hashes(cmd: IntakeCommand): DedupHashes {
    return this.contact(leadCipher(this.keyring, cmd.lead), cmd).hashes;
  }

  private contact(cipher: PiiCipher, cmd: IntakeCommand): Pick<OpenedLead, 'phone' | 'email' | 'hashes'> {
    const phone = cipher.decrypt(cmd.lead.phone_enc);
    const email = cmd.lead.email_enc === undefined ? null : cipher.decrypt(cmd.lead.email_enc);
    return {
      phone,
      email,
      hashes: {
        phone_hash: lookupHash(this.hashKey, 'phone', phone),
        email_hash: email === null ? null : lookupHash(this.hashKey, 'email', email),
      },
    };
  }
}
