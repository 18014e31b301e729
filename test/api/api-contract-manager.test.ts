import { join } from 'node:path';
import { MANAGER_TOKEN } from '../support/test-config';
import { contractRunOfFile, expectNoFinding, RUN_TIMEOUT_MS } from '../support/schemathesis';

// The manager's OpenAPI document against the server, by Schemathesis (test/support/schemathesis.ts), with
// test/contract/manager.toml. Examples per operation of the fuzzing phase: 25 keep the file about 75 s alone (the
// coverage phase, every boundary of each body, is half of it; time zones are a sample, time_zone_sample.py).
const EXAMPLES = '25';

const contract = contractRunOfFile();

it(
  'the manager document tells the truth',
  async () => {
    expectNoFinding(
      await contract().schemathesis(
        [
          `${contract().app.url}/api/openapi.json`,
          '-H',
          `Authorization: Bearer ${MANAGER_TOKEN}`,
          '-n',
          EXAMPLES,
          '--exclude-path-regex',
          'test-callback',
          // The document also lists the console's session cookie as a way in: generated, an empty
          // cookie made most cases a 401 beside a valid token, so the cases never reached the rules.
          '--generation-with-security-parameters',
          'false',
        ],
        { SCHEMATHESIS_HOOKS: 'manager_rules' },
        join(__dirname, '..', 'contract', 'manager.toml'),
      ),
    );
  },
  RUN_TIMEOUT_MS + 60_000,
);
