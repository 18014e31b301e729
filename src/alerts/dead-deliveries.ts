import type { Collection, Db } from 'mongodb';
import { insertAllNew } from '../shared/mongo/bulk';

// The deliveries that died, kept until their period's digest is queued: one document per death
// (`<delivery id>:<period start>`, so a redelivered dead task counts once, and a delivery retried by
// hand that dies again in a later period counts there too).
export interface DeadDeliveryDoc {
  _id: string;
  partner_id: string;
  period: number; // the period's start, epoch ms
}

export class DeadDeliveries {
  private readonly docs: Collection<DeadDeliveryDoc>;

  constructor(db: Db) {
    this.docs = db.collection<DeadDeliveryDoc>('alert_dead_deliveries');
  }

  async ensureIndexes(): Promise<void> {
    await this.docs.createIndex({ period: 1 }, { name: 'period' });
  }

  async record(deaths: readonly DeadDeliveryDoc[]): Promise<void> {
    // A death already recorded (a redelivered batch) is left as it is.
    await insertAllNew(this.docs, deaths);
  }

  // Every death of the periods before `period` (whose digests are due).
  async before(period: number): Promise<DeadDeliveryDoc[]> {
    return this.docs.find({ period: { $lt: period } }).toArray();
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.docs.deleteMany({ _id: { $in: [...ids] } });
  }
}
