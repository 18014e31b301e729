import { randomBytes } from 'node:crypto';
import { openDataKey } from '../../src/shared/crypto/data-key';
import { lookupHash } from '../../src/shared/crypto/lookup-hash';
import type { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import type { TopicKey } from '../../src/shared/kafka/topics';
import type { IntakeKeyDoc, LeadKeyDoc } from '../../src/shared/mongo/documents';
import type { Runtime } from '../../src/shared/runtime';
import { until } from './topic-probe';

export function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object' && !(value instanceof Date)) return Object.values(value).flatMap(strings);
  return [];
}

const CIPHERTEXT = /[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

// Where personal data could still be read after an erasure: every document of the test's database,
// every key and value under its Redis prefix, every message of its topics, in clear or as a
// ciphertext that the keyring or any data key still stored opens.
export class PersonalDataResidue {
  constructor(private readonly rt: Runtime) {}

  // The person's keyed lookup hashes: whoever holds HASH_KEY finds the phone behind one by hashing a
  // country's numbering plan, so a hash left anywhere is as readable as the phone.
  hashesOf(phone: string, email?: string): string[] {
    const key = this.rt.config.crypto.hashKey;
    return [lookupHash(key, 'phone', phone), ...(email === undefined ? [] : [lookupHash(key, 'email', email)])];
  }

  async everyDocument(): Promise<{ collection: string; doc: unknown }[]> {
    const names = (await this.rt.mongo.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const all = await Promise.all(
      names.map(async (n) =>
        (await this.rt.mongo.db.collection(n).find().toArray()).map((doc) => ({ collection: n, doc })),
      ),
    );
    return all.flat();
  }

  // The names of the test's collections that start with `prefix` (a day's or an hour's keys).
  async collectionsNamed(prefix: string): Promise<string[]> {
    return (await this.rt.mongo.db.listCollections({}, { nameOnly: true }).toArray())
      .map((c) => c.name)
      .filter((n) => n.startsWith(prefix));
  }

  // Every cipher that could still open something: the keyring, and every data key left in any day's
  // lead keys or any hour's intake keys.
  private async remainingCiphers(): Promise<PiiCipher[]> {
    const keys = (await this.everyDocument())
      .filter((d) => /^(lead|intake)_keys_/.test(d.collection))
      .map((d) => d.doc as LeadKeyDoc | IntakeKeyDoc);
    return [this.rt.cipher, ...keys.map((k) => openDataKey(this.rt.cipher, k.dek_enc))];
  }

  // Where `texts` (labelled by where they were found) show any of `plaintexts` in clear, or hold a
  // ciphertext that a remaining cipher opens to one of them.
  async readableIn(texts: { where: string; text: string }[], plaintexts: string[]): Promise<string[]> {
    const found: string[] = [];
    const ciphers = await this.remainingCiphers();
    for (const { where, text } of texts) {
      if (plaintexts.some((p) => text.includes(p))) found.push(`${where}: plaintext`);
      for (const token of text.match(CIPHERTEXT) ?? []) {
        for (const cipher of ciphers) {
          let opened: string | null = null;
          try {
            opened = cipher.decrypt(token);
          } catch {
            // not this cipher's
          }
          if (opened !== null && plaintexts.some((p) => opened.includes(p)))
            found.push(`${where}: decryptable ciphertext`);
        }
      }
    }
    return found;
  }

  async readableAnywhere(plaintexts: string[]): Promise<string[]> {
    return this.readableIn(await this.everyDocumentText(), plaintexts);
  }

  // Every string of every document, labelled by its collection.
  async everyDocumentText(): Promise<{ where: string; text: string }[]> {
    return (await this.everyDocument()).flatMap(({ collection, doc }) =>
      strings(doc).map((text) => ({ where: collection, text })),
    );
  }

  // Every key and value under the test's Redis prefix.
  async everyRedisText(): Promise<{ where: string; text: string }[]> {
    const { redis } = this.rt;
    const keys = await redis.keys(`${this.rt.config.redis.prefix}*`);
    const texts: { where: string; text: string }[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      const values =
        type === 'string'
          ? [(await redis.get(key)) ?? '']
          : type === 'hash'
            ? Object.entries(await redis.hgetall(key)).flat()
            : type === 'set'
              ? await redis.smembers(key)
              : type === 'zset'
                ? await redis.zrange(key, '0', '-1')
                : type === 'list'
                  ? await redis.lrange(key, 0, -1)
                  : [];
      texts.push({ where: `redis ${key}`, text: [key, ...values].join('\n') });
    }
    return texts;
  }

  // Every message of the given topics, from the beginning, as text: its key, value and headers.
  async everyMessage(topics: readonly TopicKey[]): Promise<{ where: string; text: string }[]> {
    const names = topics.map((t) => this.rt.topics[t]);
    const admin = this.rt.kafka.admin();
    await admin.connect();
    const ends = new Map<string, number>();
    for (const topic of names)
      for (const p of await admin.fetchTopicOffsets(topic)) ends.set(`${topic}:${p.partition}`, Number(p.high));
    await admin.disconnect();
    const texts: { where: string; text: string }[] = [];
    const consumer = this.rt.kafka.consumer({ groupId: `erasure-scan-${randomBytes(6).toString('hex')}` });
    await consumer.connect();
    await consumer.subscribe({ topics: names, fromBeginning: true });
    const read = new Map<string, number>();
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        texts.push({
          where: `kafka ${topic}`,
          text: [
            message.key?.toString() ?? '',
            message.value?.toString('utf8') ?? '',
            ...Object.entries(message.headers ?? {}).map(([k, v]) => `${k}: ${String(v)}`),
          ].join('\n'),
        });
        read.set(`${topic}:${partition}`, Number(message.offset) + 1);
      },
    });
    await until(
      async () => [...ends].every(([tp, end]) => end === 0 || (read.get(tp) ?? 0) >= end),
      30000,
      'every message read',
    );
    await consumer.disconnect();
    return texts;
  }
}
