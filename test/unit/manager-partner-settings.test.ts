import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsProblem } from '../../src/manager/partner-settings';
import { DEFAULT_CATALOG, loadStatuses } from '../../src/shared/status-catalog';

const statuses = loadStatuses(null);
const problem = (settings: unknown, allowHttp = false) => settingsProblem(settings, statuses, allowHttp);

describe('partner settings checks', () => {
  it('accepts a full, sound configuration', () => {
    expect(
      problem({
        name: 'A',
        callback_url: 'https://a.example/cb?x=1',
        callback_events: ['lead.ftd'],
        status_mapping: { new: 'N', rejected: 'R', ftd: 'D' },
        field_mapping: { phone: 'contact.phone' },
        rate_limits: { intake_per_minute: 10 },
        blocked_countries: ['KP'],
        blocked_ip_ranges: ['10.0.0.0/8', '2001:db8::1'],
        disabled: true,
        mode: 'test',
        risk_threshold: 70,
      }),
    ).toBeNull();
    expect(problem({ mode: 'live', risk_threshold: null })).toBeNull();
    expect(problem({ callback_url: null })).toBeNull();
  });

  it.each([
    [{ callback_url: 'https://' }, /not a URL/],
    [{ callback_url: 'http://a.example/cb' }, /https/],
    [{ callback_url: 'mailto:a@b.example' }, /https/],
    [{ callback_url: 'https://user:pw@a.example/' }, /credentials/],
    [{ status_mapping: { lost: 'L' } }, /unknown status "lost"/],
    [{ blocked_ip_ranges: ['10.0.0.0/33'] }, /blocked_ip_ranges/],
    [{ callback_events: ['lead.nope'] }, /callback_events/],
    [{ field_mapping: { phone: 'a..b' } }, /field_mapping/],
    [{ mode: 'sandbox' }, /mode/],
    [{ risk_threshold: 0 }, /risk_threshold/],
    [{ risk_threshold: 101 }, /risk_threshold/],
    [{ risk_threshold: 50.5 }, /risk_threshold/],
  ])('names the problem in %j', (settings, message) => {
    expect(problem(settings)).toMatch(message);
  });

  it('allows plain http only when configured to', () => {
    expect(problem({ callback_url: 'http://127.0.0.1:9000/cb' }, true)).toBeNull();
  });

  it('knows the custom statuses of an installed catalogue', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'statuses.json');
    const catalog = {
      ...DEFAULT_CATALOG,
      statuses: [...DEFAULT_CATALOG.statuses, { code: 'vip', terminal: false, scope: 'lead' }],
    };
    writeFileSync(file, JSON.stringify(catalog));
    expect(settingsProblem({ status_mapping: { vip: 'GOLD' } }, loadStatuses(file), false)).toBeNull();
    expect(problem({ status_mapping: { vip: 'GOLD' } })).toMatch(/unknown status "vip"/);
  });
});
