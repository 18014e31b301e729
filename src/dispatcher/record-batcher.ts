import type { Logger } from '../shared/logger';
import type { DeliveryDoc } from '../shared/mongo/delivery-doc';
import { untilDone } from '../shared/retriable';
import type { DeliveryStore } from './delivery-store';
import type { DispatcherMetrics } from './metrics';
import { WriteBatch } from './write-batch';

interface NewRecord {
  doc: DeliveryDoc;
  fenced: () => boolean;
}

// New delivery records written in one insertMany with the others of a few milliseconds
// (write-batch.ts): the happy path costs far less than one database command per callback.
export class RecordBatcher {
  private readonly batch: WriteBatch<NewRecord, boolean>;

  constructor(
    private readonly store: DeliveryStore,
    private readonly logger: Logger,
    private readonly metrics: Pick<DispatcherMetrics, 'attemptsUnrecorded'>,
  ) {
    this.batch = new WriteBatch((records) => this.write(records));
  }

  // Resolves true once the record is stored (or known to exist), false when `fenced` says, as the
  // write is about to go, that its assignment was handed over or its lease ran out (a process frozen
  // between the two): it is not written. Never rejects: a passing failure is tried again; a record
  // the store refuses for good is logged and given up.
  add(doc: DeliveryDoc, fenced: () => boolean): Promise<boolean> {
    return this.batch.add({ doc, fenced });
  }

  // Waits for everything added so far to be written.
  drain(): Promise<void> {
    return this.batch.drain();
  }

  private async write(all: NewRecord[]): Promise<boolean[]> {
    const written = all.map((r) => !r.fenced());
    const docs = all.filter((_, i) => written[i]).map((r) => r.doc);
    if (docs.length === 0) return written;
    try {
      const existed = await untilDone(
        () => this.store.insertNew(docs),
        (err, attempt) =>
          this.logger.warn(
            { records: docs.length, attempt, err: (err as Error).message },
            'could not write delivery records; trying again',
          ),
      );
      for (const doc of docs) if (existed.has(doc._id) && doc.attempts.length > 0) this.repeated(doc._id);
    } catch (err) {
      this.logger.error(
        { ids: docs.map((d) => d._id), err: (err as Error).message },
        'the store refused delivery records',
      );
    }
    return written;
  }

  // Another owner recorded this delivery first (an owner that lost its partitions without knowing,
  // answered late): both sent it, and this attempt's outcome is not recorded.
  private repeated(id: string): void {
    this.logger.warn({ delivery_id: id }, 'another owner recorded this delivery first: this attempt is not recorded');
    this.metrics.attemptsUnrecorded.inc();
  }
}
