import { nextPageCommand, parseCommand, usage, UsageError, COMMANDS } from '../../src/manager/cli-commands';

describe('manager CLI arguments', () => {
  it('builds a partner creation body from flags, nested quotas included', () => {
    expect(
      parseCommand([
        'create-partner',
        '--name',
        'Acme',
        '--callback-url',
        'https://a.example/cb',
        '--events',
        'lead.accepted, lead.ftd',
        '--status-mapping',
        '{"new":"NEW"}',
        '--intake-per-minute',
        '120',
        '--status-per-minute',
        '240',
        '--blocked-countries',
        'KP,IR',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/api/affiliates',
      body: {
        name: 'Acme',
        callback_url: 'https://a.example/cb',
        callback_events: ['lead.accepted', 'lead.ftd'],
        status_mapping: { new: 'NEW' },
        rate_limits: { intake_per_minute: 120, status_per_minute: 240 },
        blocked_countries: ['KP', 'IR'],
      },
    });
  });

  it('clears a callback URL with "none", empties a list with "" and merges --json last', () => {
    expect(
      parseCommand([
        'update-partner',
        'pa-1',
        '--callback-url',
        'none',
        '--events',
        '',
        '--disabled',
        'true',
        '--json',
        '{"name":"B"}',
      ]),
    ).toEqual({
      method: 'PATCH',
      path: '/api/affiliates/pa-1',
      body: { callback_url: null, callback_events: [], disabled: true, name: 'B' },
    });
  });

  it('sets caps and time zones of partners, and working hours of agents', () => {
    expect(
      parseCommand([
        'update-partner',
        'pa-1',
        '--time-zone',
        'Europe/Berlin',
        '--caps',
        '{"daily":100,"countries":{"DE":{"hourly":5}}}',
      ]),
    ).toEqual({
      method: 'PATCH',
      path: '/api/affiliates/pa-1',
      body: { time_zone: 'Europe/Berlin', caps: { daily: 100, countries: { DE: { hourly: 5 } } } },
    });
    expect(
      parseCommand([
        'create-agent',
        '--name',
        'Ann',
        '--time-zone',
        'America/New_York',
        '--working-hours',
        '{"mon":["09:00-17:00"]}',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/api/agents',
      body: { name: 'Ann', time_zone: 'America/New_York', working_hours: { mon: ['09:00-17:00'] } },
    });
  });

  it('puts list filters in the query string', () => {
    expect(parseCommand(['list-deliveries', '--state', 'dead', '--affiliate-id', 'pa-1', '--limit', '10'])).toEqual({
      method: 'GET',
      path: '/api/deliveries?state=dead&affiliate_id=pa-1&limit=10',
    });
    expect(parseCommand(['list-partners'])).toEqual({ method: 'GET', path: '/api/affiliates' });
    expect(parseCommand(['list-agents', '--offset', '50']).path).toBe('/api/agents?offset=50');
  });

  it('pages the big lists by cursor, with a time range on deliveries and every filter of the lead list', () => {
    expect(
      parseCommand([
        'list-deliveries',
        '--from',
        '2026-11-01T00:00:00Z',
        '--to',
        '2026-11-02T00:00:00Z',
        '--cursor',
        'abc_-',
      ]),
    ).toEqual({
      method: 'GET',
      path: '/api/deliveries?from=2026-11-01T00%3A00%3A00Z&to=2026-11-02T00%3A00%3A00Z&cursor=abc_-',
    });
    expect(
      parseCommand([
        'leads',
        '--affiliate-id',
        'pa-1',
        '--status',
        'ftd',
        '--country',
        'GB',
        '--source',
        'paid search',
        '--is-depositor',
        'true',
        '--from',
        '2026-11-01T00:00:00Z',
        '--limit',
        '20',
        '--cursor',
        'c1',
      ]),
    ).toEqual({
      method: 'GET',
      path: '/api/leads?affiliate_id=pa-1&status=ftd&country_code=GB&source=paid+search&is_depositor=true&from=2026-11-01T00%3A00%3A00Z&limit=20&cursor=c1',
    });
    expect(parseCommand(['audit-log', '--cursor', 'c2']).path).toBe('/api/audit-log?cursor=c2');
    expect(parseCommand(['agent-leads', 'ag-1', '--cursor', 'c3']).path).toBe('/api/agents/ag-1/leads?cursor=c3');
    expect(() => parseCommand(['leads', '--offset', '50'])).toThrow(/offset/);
  });

  it("names the next page's command when the answer has a next_cursor, a short page included", () => {
    expect(
      nextPageCommand(['leads', '--source', "partner's list", '--cursor', 'old'], { items: [], next_cursor: 'bmV4dA' }),
    ).toBe("npm run manager -- leads --source 'partner'\\''s list' --cursor bmV4dA");
    expect(nextPageCommand(['audit-log', '--cursor=old'], { items: [{}], next_cursor: 'n2' })).toBe(
      'npm run manager -- audit-log --cursor n2',
    );
    expect(nextPageCommand(['leads'], { items: [], next_cursor: null })).toBeNull();
    expect(nextPageCommand(['list-partners'], { items: [], next_offset: 50 })).toBeNull();
    expect(nextPageCommand(['show-lead', 'le-1'], undefined)).toBeNull();
  });

  it('sends no body for actions that take none, and an empty one for rotate-key without flags', () => {
    expect(parseCommand(['test-callback', 'pa-1'])).toEqual({
      method: 'POST',
      path: '/api/affiliates/pa-1/test-callback',
    });
    expect(parseCommand(['retry-dead', 'pa-1'])).toEqual({
      method: 'POST',
      path: '/api/affiliates/pa-1/deliveries/retry-dead',
    });
    expect(parseCommand(['rotate-key', 'pa-1', '--secrets', 'hmac_secret,callback_secret'])).toEqual({
      method: 'POST',
      path: '/api/affiliates/pa-1/rotate-key',
      body: { secrets: ['hmac_secret', 'callback_secret'] },
    });
    expect(parseCommand(['rotate-key', 'pa-1']).body).toEqual({});
  });

  it('sets the sandbox mode and the risk threshold, "none" clearing it, and erases and shows leads', () => {
    expect(parseCommand(['update-partner', 'pa-1', '--mode', 'test', '--risk-threshold', '70']).body).toEqual({
      mode: 'test',
      risk_threshold: 70,
    });
    expect(parseCommand(['update-partner', 'pa-1', '--risk-threshold', 'none']).body).toEqual({ risk_threshold: null });
    expect(parseCommand(['erase-personal-data', 'le-7'])).toEqual({
      method: 'DELETE',
      path: '/api/leads/le-7/personal-data',
    });
    expect(parseCommand(['show-lead', 'le-7'])).toEqual({ method: 'GET', path: '/api/leads/le-7' });
    expect(parseCommand(['agent-leads', 'ag-1', '--limit', '5'])).toEqual({
      method: 'GET',
      path: '/api/agents/ag-1/leads?limit=5',
    });
    expect(() => parseCommand(['update-partner', 'pa-1', '--risk-threshold', 'high'])).toThrow(/whole number/);
  });

  it('builds the endpoint and replay requests', () => {
    expect(parseCommand(['rotate-key', 'pa-1', '--grace-seconds', '3600']).body).toEqual({ grace_seconds: 3600 });
    expect(parseCommand(['endpoint-health', 'pa-1'])).toEqual({
      method: 'GET',
      path: '/api/affiliates/pa-1/endpoint-health',
    });
    expect(parseCommand(['resume-endpoint', 'pa-1'])).toEqual({
      method: 'POST',
      path: '/api/affiliates/pa-1/endpoint/resume',
    });
    expect(
      parseCommand([
        'replay',
        'pa-1',
        '--from',
        '2026-11-01T00:00:00Z',
        '--to',
        '2026-11-02T00:00:00Z',
        '--events',
        'lead.ftd',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/api/affiliates/pa-1/replay',
      body: { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z', events: ['lead.ftd'] },
    });
    expect(parseCommand(['show-replay', 'rp-1'])).toEqual({ method: 'GET', path: '/api/replays/rp-1' });
    expect(parseCommand(['update-partner', 'pa-1', '--signature-scheme', 'standard-webhooks']).body).toEqual({
      signature_scheme: 'standard-webhooks',
    });
  });

  it('escapes ids in paths', () => {
    expect(parseCommand(['show-agent', '../x']).path).toBe('/api/agents/..%2Fx');
  });

  it.each([
    [['nope'], /unknown command/],
    [[], /no command/],
    [['show-partner'], /needs the partner id/],
    [['list-partners', 'extra'], /unexpected argument/],
    [['create-agent', '--colour', 'red'], /colour/],
    [['create-agent', '--active', 'yes'], /true or false/],
    [['list-agents', '--limit', 'ten'], /whole number/],
    [['create-partner', '--status-mapping', '[1]'], /JSON object/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(UsageError);
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it('lists every command in its usage text', () => {
    for (const name of Object.keys(COMMANDS)) expect(usage()).toContain(name);
  });
});
