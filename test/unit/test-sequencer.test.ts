import { existsSync } from 'node:fs';
import { join } from 'node:path';

// test/setup/sequencer.js: the order jest starts test files in (the known longest first where jest has no times).
type Test = { path: string; duration?: number; context: object };
interface Sequencer {
  sort(tests: Test[]): Test[];
  time(test: Test): number | undefined;
}
type SequencerClass = (new (options: object) => Sequencer) & { KNOWN_LONGEST: string[] };

const ROOT = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const KnownLongestFirst = require('../setup/sequencer.js') as SequencerClass;

const SIZES: Record<string, number> = {
  'test/api/reports.test.ts': 9000,
  'test/api/api-contract-partner.test.ts': 1800,
  'test/api/intake-http.test.ts': 5000,
  'test/api/api-contract-manager.test.ts': 1000,
  'test/api/idle-timers.test.ts': 900,
  'test/api/api-contract-portal.test.ts': 2500,
};
// A checkout jest never ran: no cache of times, files as big as SIZES says.
const context = {
  config: { cache: false },
  hasteFS: { getSize: (path: string) => SIZES[path.slice(ROOT.length + 1)] },
};
const tests = (): Test[] => Object.keys(SIZES).map((path) => ({ path: join(ROOT, path), context }));
const order = (sorted: Test[]) => sorted.map((t) => t.path.slice(ROOT.length + 1));

describe('the order test files start in', () => {
  it('starts the known longest first, in their order, then the rest largest first, where jest has no times', () => {
    expect(order(new KnownLongestFirst({}).sort(tests()))).toEqual([
      'test/api/api-contract-manager.test.ts',
      'test/api/api-contract-portal.test.ts',
      'test/api/api-contract-partner.test.ts',
      'test/api/reports.test.ts',
      'test/api/intake-http.test.ts',
      'test/api/idle-timers.test.ts',
    ]);
  });

  it("keeps jest's own order, slowest first, where jest timed the files", () => {
    const times: Record<string, number> = { 'test/api/api-contract-manager.test.ts': 1 };
    class Timed extends KnownLongestFirst {
      override time(test: Test) {
        return times[test.path.slice(ROOT.length + 1)] ?? 10;
      }
    }
    expect(order(new Timed({}).sort(tests())).at(-1)).toBe('test/api/api-contract-manager.test.ts');
  });

  it('names only files that exist', () => {
    expect(KnownLongestFirst.KNOWN_LONGEST.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
