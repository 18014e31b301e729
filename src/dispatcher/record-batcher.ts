import type { Logger } from '../shared/logger';
import type { DeliveryDoc } from '../shared/mongo/delivery-doc';
import { untilDone } from '../shared/retriable';
import type { DeliveryStore } from './delivery-store';

// New delivery records gathered for a few milliseconds (or until there are enough) and written in
// one insertMany: the happy path costs far less than one database command per callback.
const FLUSH_AFTER_MS = 5;
const FLUSH_AT = 200;

interface Waiting {
  doc: DeliveryDoc;
  fenced: () => boolean;
  resolve(written: boolean): void;
}

export class RecordBatcher {
  private queue: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: DeliveryStore,
    private readonly logger: Logger,
  ) {}

  // Resolves true once the record is stored (or known to exist), false when `fenced` says, as the
  // write is about to go, that its assignment was handed over or its lease ran out (a process frozen
  // between the two): it is not written. Never rejects: a passing failure is tried again; a record
  // the store refuses for good is logged and given up.
  add(doc: DeliveryDoc, fenced: () => boolean): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.queue.push({ doc, fenced, resolve });
      if (this.queue.length >= FLUSH_AT) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), FLUSH_AFTER_MS);
    });
  }

  // Waits for everything added so far to be written.
  async drain(): Promise<void> {
    this.flushNow();
    await this.flushing;
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    this.flushing = this.flushing.then(() => this.write(batch));
  }

  private async write(all: Waiting[]): Promise<void> {
    const batch = all.filter((w) => !w.fenced());
    for (const w of all) if (!batch.includes(w)) w.resolve(false);
    if (batch.length === 0) return;
    try {
      await untilDone(
        () => this.store.insertNew(batch.map((w) => w.doc)),
        (err, attempt) =>
          this.logger.warn(
            { records: batch.length, attempt, err: (err as Error).message },
            'could not write delivery records; trying again',
          ),
      );
    } catch (err) {
      this.logger.error(
        { ids: batch.map((w) => w.doc._id), err: (err as Error).message },
        'the store refused delivery records',
      );
    }
    for (const w of batch) w.resolve(true);
  }
}
