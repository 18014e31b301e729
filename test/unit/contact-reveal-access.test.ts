import { randomBytes } from 'node:crypto';
import { openContact, fullName } from '../../src/manager/contact/lead-contact';
import {
  decideReveal,
  supervisorToCheck,
  type RevealCaller,
  type RevealLead,
} from '../../src/manager/contact/reveal-access';
import { newDataKey } from '../../src/shared/crypto/data-key';
import { sealPersonal } from '../../src/shared/crypto/personal-data';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';

// Who may have a lead's contact, decided without I/O (the integration test walks the same cases over HTTP).
const agentAccount: RevealCaller = {
  kind: 'account',
  id: 'acc-anna',
  role: 'agent',
  agentId: 'ag-anna',
  requestedAgentId: null,
};
const supervisor: RevealCaller = {
  kind: 'account',
  id: 'acc-sue',
  role: 'supervisor',
  agentId: null,
  requestedAgentId: null,
};
const crm = (agent: string | null): RevealCaller => ({
  kind: 'service_account',
  id: 'sa-crm',
  role: 'agent',
  agentId: null,
  requestedAgentId: agent,
});
const assigned: RevealLead = { agentId: 'ag-anna', terminal: false, erased: false };

describe('decideReveal', () => {
  it("reveals to the lead's agent, its supervisor and a CRM naming that agent", () => {
    expect(decideReveal(agentAccount, assigned, null)).toEqual({ outcome: 'revealed', agentId: 'ag-anna' });
    expect(decideReveal(supervisor, assigned, 'acc-sue')).toEqual({ outcome: 'revealed', agentId: 'ag-anna' });
    expect(decideReveal(crm('ag-anna'), assigned, null)).toEqual({ outcome: 'revealed', agentId: 'ag-anna' });
  });

  it('answers not_found to anyone else, as for a lead that does not exist', () => {
    expect(decideReveal({ ...agentAccount, id: 'acc-ben', agentId: 'ag-ben' }, assigned, null).outcome).toBe(
      'not_found',
    );
    expect(decideReveal(supervisor, assigned, 'acc-other')).toMatchObject({ outcome: 'not_found' });
    expect(decideReveal(supervisor, assigned, null)).toMatchObject({ outcome: 'not_found' });
    expect(decideReveal(crm('ag-ben'), assigned, null)).toEqual({ outcome: 'not_found', agentId: 'ag-ben' });
    // A supervisor naming another agent than the lead's learns nothing either.
    expect(decideReveal({ ...supervisor, requestedAgentId: 'ag-ben' }, assigned, 'acc-sue').outcome).toBe('not_found');
  });

  it("ignores an agent_id an agent's account names: it reveals for its own agent only", () => {
    expect(decideReveal({ ...agentAccount, requestedAgentId: 'ag-ben' }, assigned, null)).toEqual({
      outcome: 'revealed',
      agentId: 'ag-anna',
    });
  });

  it('refuses callers who act for no agent (403)', () => {
    expect(decideReveal({ ...agentAccount, agentId: null }, assigned, null)).toEqual({ outcome: 'no_agent' });
    expect(decideReveal(crm(null), assigned, null)).toEqual({ outcome: 'no_agent' });
  });

  it("hides a lead that left its agent, and tells only the agent's side of an erasure", () => {
    expect(decideReveal(agentAccount, { ...assigned, terminal: true }, null).outcome).toBe('not_found');
    expect(decideReveal(agentAccount, { ...assigned, agentId: null }, null).outcome).toBe('not_found');
    expect(decideReveal(agentAccount, { ...assigned, erased: true }, null)).toEqual({
      outcome: 'erased',
      agentId: 'ag-anna',
    });
    expect(decideReveal(supervisor, { ...assigned, erased: true, terminal: true }, 'acc-sue').outcome).toBe('erased');
    expect(decideReveal(crm('ag-ben'), { ...assigned, erased: true }, null).outcome).toBe('not_found');
  });

  it('looks a supervisor up only for a person asking for an agent they are not', () => {
    expect(supervisorToCheck(agentAccount, 'ag-anna')).toBeNull();
    expect(supervisorToCheck(crm('ag-anna'), 'ag-anna')).toBeNull();
    expect(supervisorToCheck(supervisor, 'ag-anna')).toBe('ag-anna');
    expect(supervisorToCheck(supervisor, null)).toBeNull();
  });
});

describe('openContact', () => {
  const keyring = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
  const key = newDataKey(keyring);
  const lead = {
    _id: 'le-1',
    phone_enc: key.cipher.encrypt('+4915112345678'),
    email_enc: key.cipher.encrypt('anna@example.com'),
    personal_enc: sealPersonal(key.cipher, { ip: '192.0.2.1', first_name: 'Anna', last_name: 'Schmidt' }),
    language: 'de',
  };

  it("opens phone, email and name with the lead's own key", () => {
    expect(openContact(keyring, lead, { dek_enc: key.wrapped })).toEqual({
      lead_id: 'le-1',
      phone: '+4915112345678',
      email: 'anna@example.com',
      full_name: 'Anna Schmidt',
      language: 'de',
    });
  });

  it('has nothing to open once the key is gone, or the ciphertexts', () => {
    expect(openContact(keyring, lead, undefined)).toBeNull();
    expect(openContact(keyring, { _id: 'le-1' }, { dek_enc: key.wrapped })).toBeNull();
  });

  it('opens a lead sealed with the keyring itself (before per-lead keys)', () => {
    expect(
      openContact(keyring, { _id: 'le-2', phone_enc: keyring.encrypt('+33612345678'), email_enc: null }, undefined),
    ).toEqual({ lead_id: 'le-2', phone: '+33612345678', email: null, full_name: null, language: null });
  });

  it('names the lead by full_name, else first and last name', () => {
    expect(fullName({ full_name: 'A. Schmidt', first_name: 'Anna' })).toBe('A. Schmidt');
    expect(fullName({ last_name: 'Schmidt' })).toBe('Schmidt');
    expect(fullName({})).toBeNull();
  });
});
