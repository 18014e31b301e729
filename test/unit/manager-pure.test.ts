import { LIST_SCAN, scanOn, toPage } from '../../src/manager/pagination';
import { partnerView } from '../../src/manager/partner-service';
import { testCallbackPayload } from '../../src/dispatcher/test-callback';
import { SAMPLE_LEAD_ID } from '../../src/shared/postbacks/sample-event';
import { validatorFor, type CallbackPayload } from '../../src/shared/schemas';
import type { PartnerDoc } from '../../src/shared/mongo/documents';

describe('pages', () => {
  it('tells whether another page follows from the extra row', () => {
    expect(toPage([1, 2, 3], { limit: 2, offset: 4 })).toEqual({ items: [1, 2], next_offset: 6 });
    expect(toPage([1, 2], { limit: 2, offset: 4 })).toEqual({ items: [1, 2], next_offset: null });
    expect(toPage([], { limit: 50, offset: 0 })).toEqual({ items: [], next_offset: null });
  });

  it('scans another chunk of entries only when, at the pace so far, it ends within the step', () => {
    const cases: [{ chunks: number; ms: number }, { entries: number; ms: number }, boolean][] = [
      [{ chunks: 1, ms: 40 }, LIST_SCAN, true], // a second chunk ends at 80 ms
      [{ chunks: 1, ms: 50 }, LIST_SCAN, true], // exactly at 100 ms
      [{ chunks: 1, ms: 60 }, LIST_SCAN, false], // a second would end at 120 ms
      [{ chunks: 3, ms: 70 }, LIST_SCAN, true],
      [{ chunks: 3, ms: 80 }, LIST_SCAN, false],
      [{ chunks: 7, ms: 10 }, LIST_SCAN, true], // the eighth reaches the 2,000 entries
      [{ chunks: 8, ms: 10 }, LIST_SCAN, false], // a ninth would pass them
      [{ chunks: 1, ms: 30 }, { ...LIST_SCAN, ms: 50 }, false], // the partner API's shorter step
      [{ chunks: 1, ms: 20 }, { ...LIST_SCAN, ms: 50 }, true],
      [{ chunks: 1, ms: 1 }, { ...LIST_SCAN, ms: 1 }, false],
    ];
    for (const [spent, budget, on] of cases)
      expect([spent, budget.ms, scanOn(spent, budget)]).toEqual([spent, budget.ms, on]);
  });
});

describe('partner view', () => {
  it('drops the key hash and the encrypted secrets', () => {
    const now = new Date();
    const doc: PartnerDoc = {
      _id: 'pa-1',
      name: 'A',
      api_key_hash: 'h',
      hmac_secret_enc: 'e1',
      callback_secret_enc: 'e2',
      callback_url: null,
      disabled: false,
      created_at: now,
      updated_at: now,
      key_rotated_at: null,
    };
    expect(partnerView(doc)).toEqual({
      id: 'pa-1',
      name: 'A',
      callback_url: null,
      disabled: false,
      created_at: now,
      updated_at: now,
      key_rotated_at: null,
      previous_secrets_until: null,
      postback_token_set: false,
    });
  });

  it("shows when a rotation's grace ends, never the secrets it keeps", () => {
    const now = new Date();
    const until = new Date(now.getTime() + 60_000);
    const doc: PartnerDoc = {
      _id: 'pa-1',
      name: 'A',
      api_key_hash: 'h',
      hmac_secret_enc: 'e1',
      callback_secret_enc: 'e2',
      callback_url: null,
      disabled: false,
      created_at: now,
      updated_at: now,
      key_rotated_at: now,
      previous_secrets: { api_key_hash: 'old-h', hmac_secret_enc: 'old-e1', callback_secret_enc: 'old-e2', until },
    };
    const view = partnerView(doc);
    expect(view.previous_secrets_until).toBe(until);
    expect(JSON.stringify(view)).not.toMatch(/old-/);
  });
});

describe('test callback payload', () => {
  const now = new Date('2026-01-02T03:04:05.000Z');

  it('is a valid lead.accepted for the fictitious lead, status mapped like a real one', () => {
    const payload = testCallbackPayload({ _id: 'pa-1', status_mapping: { new: 'FRESH' } }, now, 'test-abc');
    expect(payload).toEqual({
      event: 'lead.accepted',
      external_lead_id: 'test-abc',
      internal_id: SAMPLE_LEAD_ID,
      status: 'FRESH',
      our_status: 'new',
      is_depositor: false,
      timestamp: '2026-01-02T03:04:05.000Z',
    });
    expect(validatorFor<CallbackPayload>('callback-payload.json')(payload)).toBe(true);
  });

  it('sends "new" unchanged without a mapping', () => {
    expect(testCallbackPayload({ _id: 'pa-1' }, now, 'x').status).toBe('new');
  });
});
