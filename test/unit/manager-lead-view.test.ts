import { leadSummary } from '../../src/manager/lead-view';
import type { LeadDoc } from '../../src/shared/mongo/documents';

const lead = (over: Partial<LeadDoc> = {}): LeadDoc => ({
  _id: 'le-9',
  seq: 9,
  partner_id: 'pa-1',
  external_id: 'e-9',
  idempotency_key: 'k',
  status: 'new',
  is_depositor: false,
  client_id: null,
  agent_id: null,
  reason: null,
  country_code: 'DE',
  source: 'fb',
  created_at: new Date(0),
  updated_at: new Date(0),
  history: [
    {
      from: null,
      to: 'new',
      at: new Date(0),
      why: 'accepted at intake',
      source: 'intake',
      event: 'lead.accepted',
      is_depositor: false,
    },
  ],
  phone_enc: 'dek.a.b.c',
  phone_hash: 'f'.repeat(64),
  email_enc: 'dek.d.e.f',
  email_hash: 'e'.repeat(64),
  personal_enc: 'dek.g.h.i',
  risk: { score: 30, reasons: ['ip_country_mismatch_declared'], ip_country: 'US' },
  ...over,
});

describe('the lead as managers and agents see it', () => {
  it('shows status, routing fields, risk and marks, never a ciphertext or a hash', () => {
    const view = leadSummary(lead());
    expect(view).toMatchObject({
      id: 'le-9',
      affiliate_id: 'pa-1',
      status: 'new',
      details: { country_code: 'DE', source: 'fb' },
      test: false,
      personal_data: 'kept',
      personal_erased_at: null,
      risk: { score: 30, reasons: ['ip_country_mismatch_declared'], ip_country: 'US' },
      history: [{ event_id: 'le-9:0', from: null, to: 'new', at: new Date(0), event: 'lead.accepted', reason: null }],
    });
    const text = JSON.stringify(view);
    for (const secret of ['dek.', 'f'.repeat(64), 'e'.repeat(64), 'idempotency_key'])
      expect(text).not.toContain(secret);
  });

  it('says erased once the personal data is gone, test for a sandbox lead, and null risk for leads from before the signals', () => {
    const {
      phone_enc: _p,
      phone_hash: _h,
      email_enc: _e,
      email_hash: _eh,
      personal_enc: _pe,
      risk: _r,
      ...bare
    } = lead();
    expect(leadSummary({ ...bare, personal_erased_at: new Date(5), test: true })).toMatchObject({
      personal_data: 'erased',
      personal_erased_at: new Date(5),
      test: true,
      risk: null,
    });
  });
});
