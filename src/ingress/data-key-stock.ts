import { newDataKey } from '../shared/crypto/data-key';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { Logger } from '../shared/logger';
import type { IntakeKeyDoc } from '../shared/mongo/documents';
import { hourOf, IntakeKeyStore } from '../shared/store/intake-keys';

// A lead's data key as the ingress seals with it: where it is stored, and the cipher it opens.
export interface IssuedKey {
  ref: string;
  cipher: PiiCipher;
}

// Keys stored in one insert, and how low the stock falls before the next insert starts: at 200
// leads/s a key stored per request was the largest single line of the store's work (an insert a
// lead), and a stock a few hundred milliseconds deep costs a request no wait at all.
const FILL = 64;
const LOW = 16;

// A fresh data key, wrapped by the keyring's active key, and the document that stores it.
export function newIntakeKey(keyring: PiiCipher, at: Date): { doc: IntakeKeyDoc; key: IssuedKey } {
  const { cipher, wrapped } = newDataKey(keyring);
  const doc: IntakeKeyDoc = { _id: IntakeKeyStore.newRef(at), dek_enc: wrapped, created_at: at };
  return { doc, key: { ref: doc._id, cipher } };
}

// The ingress's data keys, stored before any is handed out: a lead's command refers to its key only
// once the key is in the store. A request takes one from the stock; the stock is filled in one
// insert when it runs low (or empty, and then the request waits for that insert). Nothing is filled
// at rest. A key is never handed to a request received in a later UTC hour than the key's own: its
// hour's collection is dropped once INTAKE_KEY_HOURS have passed it, and a lead's key must last as
// long as its command. Keys left unused (an hour turned, the process stopped) seal nothing and go
// with their hour.
export class DataKeyStock {
  private keys: { key: IssuedKey; hour: string }[] = [];
  // The fill under way: it settles with its failure, or null once its keys are in the stock.
  private filling: Promise<Error | null> | null = null;

  constructor(
    private readonly keyring: PiiCipher,
    private readonly store: Pick<IntakeKeyStore, 'putAll'>,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async take(receivedAt: Date): Promise<IssuedKey> {
    const hour = hourOf(receivedAt);
    for (;;) {
      this.keys = this.keys.filter((k) => k.hour >= hour);
      const next = this.keys.pop();
      if (this.keys.length < LOW) this.fill(receivedAt);
      if (next) return next.key;
      const failed = await this.filling;
      if (failed) throw failed;
    }
  }

  // Waits for a fill under way (the role's stop).
  async stop(): Promise<void> {
    await this.filling;
  }

  // Starts one fill unless one is under way. A failed fill fails the requests waiting for it and is
  // logged once; the next take starts another. Its keys are never of an hour before the request's,
  // even if the clock was set back meanwhile: the request could not take them.
  private fill(receivedAt: Date): void {
    if (this.filling) return;
    const at = new Date(Math.max(this.clock().getTime(), receivedAt.getTime()));
    const made = Array.from({ length: FILL }, () => newIntakeKey(this.keyring, at));
    const settled = (failed: Error | null): Error | null => {
      this.filling = null;
      return failed;
    };
    this.filling = this.store.putAll(made.map((m) => m.doc)).then(
      () => {
        for (const m of made) this.keys.push({ key: m.key, hour: hourOf(at) });
        return settled(null);
      },
      (err: unknown) => {
        const failed = err instanceof Error ? err : new Error(String(err));
        this.logger.error({ err: failed.message }, 'could not store data keys');
        return settled(failed);
      },
    );
  }
}
