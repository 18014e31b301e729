import fc from 'fast-check';
import { DEFAULT_CATALOG } from '../../src/shared/status-catalog';

// Generated CRM messages for the processor's topics: the Confluent framing, and good, unknown-lead
// and schema-violating agent actions and deposits.

export type Topic = 'agentActions' | 'deposits';

// The Confluent wire format: magic byte 0, the schema id (big-endian int32), then the JSON.
export const framed = (id: number, payload: Buffer, magic = 0): Buffer => {
  const head = Buffer.alloc(5);
  head[0] = magic;
  head.writeInt32BE(id | 0, 1);
  return Buffer.concat([head, payload]);
};
export const json = (v: unknown) => Buffer.from(JSON.stringify(v));

const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.nat({ max: 2000 }).map((n) => 'x'.repeat(n)),
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.nat(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);
const isoDate = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
  .map((d) => d.toISOString());
export const unknownLead = fc.bigInt({ min: 10n ** 9n, max: 10n ** 30n }).map((n) => `le-${n}`);
// Every status code a lead can have: the catalogue's and `rejected` (an intake outcome).
const KNOWN = [...DEFAULT_CATALOG.statuses.map((s) => s.code), 'rejected'];
// Statuses no agent action may move a `new` lead to: unknown codes, deposit-driven ones, new itself.
export const refusedStatus = fc.oneof(
  oddString.filter((s) => s.length > 0 && s.length <= 64 && !KNOWN.includes(s)),
  fc.constantFrom('new', 'ftd', 'rtd', 'chargeback', 'rejected'),
);

export const goodAction = (leadId: fc.Arbitrary<string>, status: fc.Arbitrary<string>) =>
  fc.record(
    { action_id: fc.uuid(), lead_id: leadId, status, occurred_at: isoDate },
    { requiredKeys: ['action_id', 'lead_id', 'status', 'occurred_at'] },
  );
export const goodDeposit = (leadId: fc.Arbitrary<string>) =>
  fc.record({
    deposit_id: fc.uuid(),
    lead_id: leadId,
    type: fc.constantFrom('deposit', 'chargeback'),
    amount: fc.stringMatching(/^[0-9]{1,6}\.[0-9]{2}$/),
    currency: fc.constantFrom('EUR', 'USD', 'GBP'),
    occurred_at: isoDate,
  });
// A valid message with one field broken: a wrong type, a bad pattern, a field missing or one too many.
export const violating = (good: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(good, fc.nat(), wrongType, oddString, fc.constantFrom('drop', 'type', 'string', 'extra'))
    .map(([msg, n, bad, text, how]) => {
      const keys = Object.keys(msg);
      const key = keys[n % keys.length]!;
      const out: Record<string, unknown> = { ...msg };
      if (how === 'drop') delete out[key];
      else if (how === 'type') out[key] = bad;
      else if (how === 'string')
        out[key] = /_id$/.test(key) && key !== 'lead_id' ? '' : `${text}\u0000not-${key}`; // ids: too short
      else out[`extra_${text}`] = bad;
      return out;
    });
