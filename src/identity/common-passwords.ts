import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// common-passwords.txt: the 10,000 most common passwords, in order, of the `passwords` frequency list that
// zxcvbn 4.4.2 ships (lib/frequency_lists.js; Dropbox, MIT licence), itself ranked from Mark Burnett's ten
// million passwords leaked in public breaches (xato.net, 2015). Offline on purpose: no password leaves the service.
const COMMON: ReadonlySet<string> = new Set(
  readFileSync(join(__dirname, 'common-passwords.txt'), 'utf8').split('\n').filter(Boolean),
);

// A short unit repeated ("abcabcabcabc", "111111111111"), or a common one ("passwordpassword").
function repeats(text: string, common: ReadonlySet<string>): boolean {
  for (let size = 1; size <= text.length / 2; size++) {
    if (text.length % size !== 0) continue;
    const unit = text.slice(0, size);
    if (unit.repeat(text.length / size) === text && (size <= 3 || common.has(unit))) return true;
  }
  return false;
}

// Whether a password is one a guesser tries first: on the list whatever its case, once its trailing digits and
// symbols are dropped ("Password123456!"), or a repetition.
export function isCommonPassword(password: string, common: ReadonlySet<string> = COMMON): boolean {
  const lower = password.normalize('NFKC').toLowerCase();
  const core = lower.replace(/[^\p{L}]+$/u, '');
  return common.has(lower) || (core.length > 0 && common.has(core)) || repeats(lower, common);
}
