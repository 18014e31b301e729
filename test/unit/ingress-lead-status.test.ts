import { leadStatusView } from '../../src/ingress/status-routes';

describe('leadStatusView', () => {
  const lead = {
    _id: 'le-12',
    external_id: 'ext-1',
    status: 'ftd',
    is_depositor: true,
    created_at: new Date('2024-05-01T10:00:00Z'),
    updated_at: new Date('2024-05-02T11:30:00Z'),
  };

  it('gives the partner its mapped status next to ours, with ISO times', () => {
    expect(leadStatusView(lead, { status_mapping: { ftd: 'deposited' } })).toEqual({
      id: 'le-12',
      external_id: 'ext-1',
      status: 'deposited',
      our_status: 'ftd',
      is_depositor: true,
      created_at: '2024-05-01T10:00:00.000Z',
      updated_at: '2024-05-02T11:30:00.000Z',
    });
  });

  it('sends an unmapped status unchanged', () => {
    expect(leadStatusView(lead, { status_mapping: { new: 'fresh' } })).toMatchObject({
      status: 'ftd',
      our_status: 'ftd',
    });
    expect(leadStatusView(lead, {})).toMatchObject({ status: 'ftd' });
  });
});
