import { randomBytes } from 'node:crypto';
import { DataKeyStock } from '../../src/ingress/data-key-stock';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { createLogger } from '../../src/shared/logger';
import type { IntakeKeyDoc } from '../../src/shared/mongo/documents';

// The stock's rules over a store that answers as told (its round trip on the real server:
// test/api/data-key-stock.test.ts).
const keyring = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
const logger = createLogger('silent');
const at = (iso: string) => new Date(iso);

function stockAt(clock: { now: Date }, fail: { next: boolean } = { next: false }) {
  const fills: IntakeKeyDoc[][] = [];
  const store = {
    putAll: async (docs: readonly IntakeKeyDoc[]) => {
      const failing = fail.next;
      fail.next = false;
      if (!failing) fills.push([...docs]);
      await new Promise((resolve) => setImmediate(resolve)); // a round trip's turn of the event loop
      if (failing) throw new Error('store down');
    },
  };
  return { stock: new DataKeyStock(keyring, store, logger, () => clock.now), fills };
}

it('issues only keys it stored, and fills again while keys are left, before it runs out', async () => {
  const clock = { now: at('2026-11-30T09:10:00Z') };
  const { stock, fills } = stockAt(clock);
  const first = await stock.take(clock.now);
  expect(fills).toHaveLength(1);
  expect(fills[0]?.map((d) => d._id)).toContain(first.ref);
  for (let i = 0; i < 48; i++) await stock.take(clock.now); // 15 left: the next fill starts
  expect(fills).toHaveLength(2);
});

it('never issues a key of an hour before the request', async () => {
  const clock = { now: at('2026-11-30T09:59:59Z') };
  const { stock, fills } = stockAt(clock);
  expect((await stock.take(clock.now)).ref).toMatch(/^ik-2026113009-/);
  clock.now = at('2026-11-30T10:00:01Z');
  const next = await stock.take(clock.now);
  expect(next.ref).toMatch(/^ik-2026113010-/);
  expect(fills).toHaveLength(2);
  // A request received in the hour before its key's is given the later key: it lasts longer.
  expect((await stock.take(at('2026-11-30T09:59:59Z'))).ref).toMatch(/^ik-2026113010-/);
});

it("fills keys of the request's hour when the clock was set back behind it", async () => {
  const clock = { now: at('2026-11-30T09:59:59Z') };
  const { stock, fills } = stockAt(clock);
  expect((await stock.take(at('2026-11-30T10:00:01Z'))).ref).toMatch(/^ik-2026113010-/);
  expect(fills).toHaveLength(1);
});

it('fails the requests waiting for a fill that failed, and fills again at the next request', async () => {
  const clock = { now: at('2026-11-30T09:10:00Z') };
  const fail = { next: true };
  const { stock, fills } = stockAt(clock, fail);
  const waiting = await Promise.allSettled([stock.take(clock.now), stock.take(clock.now)]);
  expect(waiting.map((w) => w.status)).toEqual(['rejected', 'rejected']);
  expect(fills).toHaveLength(0);
  await expect(stock.take(clock.now)).resolves.toHaveProperty('ref');
  expect(fills).toHaveLength(1);
});
