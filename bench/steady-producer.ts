import { bareKafka } from '../src/shared/kafka/client';
import { sleep } from './lib/env';

// A helper process for bench/round-trip-cost.ts: sends `rate` messages of `bytes` a second to `topic`,
// one a request, for `seconds`, then exits. Its own process, so its CPU is not the measured one's.
//   node --import tsx bench/steady-producer.ts <brokers> <topic> <rate> <seconds> <bytes>
async function main(): Promise<void> {
  const [brokers = '', topic = '', rate = '200', seconds = '20', bytes = '2000'] = process.argv.slice(2);
  const producer = bareKafka(brokers.split(',')).producer();
  const value = Buffer.alloc(Number(bytes), 120);
  await producer.connect();
  const start = Date.now();
  const total = Number(rate) * Number(seconds);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / Number(rate);
    if (due > Date.now()) await sleep(due - Date.now());
    await producer.send({ topic, messages: [{ key: `k${i}`, value }] });
  }
  await producer.disconnect();
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
