// The order jest starts test files in. Jest runs the files it has timed slowest first, so that no worker is
// left alone on a long file at the end; without times of its own (a checkout it never ran, as every CI run
// is) it orders by file size, largest first. The Schemathesis contract files are short files and the
// longest runs of the api kind: by size they started last, and one worker ran them alone while the other
// had nothing left. Files jest has no time for start with those known to be longest, in this order.
const Sequencer = require('@jest/test-sequencer').default;

const KNOWN_LONGEST = [
  'test/api/api-contract-manager.test.ts',
  'test/api/api-contract-portal.test.ts',
  'test/api/api-contract-partner.test.ts',
];

const rankOf = (test) => KNOWN_LONGEST.findIndex((path) => test.path.endsWith(`/${path}`));

class KnownLongestFirst extends Sequencer {
  static KNOWN_LONGEST = KNOWN_LONGEST;

  sort(tests) {
    const sorted = super.sort(tests);
    const first = sorted.filter((t) => t.duration == null && rankOf(t) >= 0).sort((a, b) => rankOf(a) - rankOf(b));
    return [...first, ...sorted.filter((t) => !first.includes(t))];
  }
}

module.exports = KnownLongestFirst;
