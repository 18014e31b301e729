import { ManagerClient } from '../support/manager-client';
import { contractRunOfFile, expectNoFinding, RUN_TIMEOUT_MS } from '../support/schemathesis';

// The partner API's OpenAPI document against the server, by Schemathesis (test/support/schemathesis.ts).
// Examples per operation: the partner API has few operations, each fuzzed harder.
const EXAMPLES = '60';

const contract = contractRunOfFile();

it(
  'the partner document tells the truth, every request signed as a partner signs it',
  async () => {
    const created = await new ManagerClient(contract().app.url).post<{ api_key: string; hmac_secret: string }>(
      '/api/affiliates',
      {
        name: 'contract-test',
        // The fuzzer sends hundreds of requests a minute; the rate limit has tests of its own.
        rate_limits: { intake_per_minute: 100000, status_per_minute: 100000 },
      },
    );
    expect(created.status).toBe(201);
    const partner = created.body;
    // X-Signature and X-Timestamp are placeholders that the hook replaces on the prepared request.
    expectNoFinding(
      await contract().schemathesis(
        [
          `${contract().app.url}/api/v1/inbound/openapi.json`,
          '-n',
          EXAMPLES,
          '-H',
          `Authorization: Bearer ${partner.api_key}`,
          '-H',
          'X-Signature: sign-me',
          '-H',
          'X-Timestamp: sign-me',
        ],
        { SCHEMATHESIS_HOOKS: 'sign_partner_requests', PARTNER_HMAC_SECRET: partner.hmac_secret },
      ),
    );
  },
  RUN_TIMEOUT_MS + 60_000,
);
