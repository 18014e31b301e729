// Runs the TypeScript snippet of docs/partners (Node strips its types): one JSON case a line on
// stdin ({secret, headers, body_base64, now}), one verdict a line on stdout; repeats are remembered
// across lines, as a partner's store would.
import { createInterface } from 'node:readline';
import { verifyCallback } from '../../../docs/partners/snippets/verify-callback.ts';

const seen = new Set();
for await (const line of createInterface({ input: process.stdin })) {
  const c = JSON.parse(line);
  console.log(verifyCallback(c.secret, c.headers, Buffer.from(c.body_base64, 'base64'), seen, c.now));
}
