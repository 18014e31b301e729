import type { Collection, Db } from 'mongodb';
import type { Clock } from '../shared/clock';
import { ALERT_KINDS, DEFAULT_ALERT_KINDS, type AlertKind } from './alert-kinds';

// Each person's choice of alerts, by account id (either realm: an account id is unique). A person
// who never chose has the defaults.
export interface AlertPreferenceDoc {
  _id: string;
  kinds: AlertKind[];
  updated_at: Date;
}

export const ALERT_PREFERENCES = 'alert_preferences';

export class AlertPreferences {
  readonly docs: Collection<AlertPreferenceDoc>;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.docs = db.collection<AlertPreferenceDoc>(ALERT_PREFERENCES);
  }

  async of(accountId: string): Promise<AlertKind[]> {
    return (await this.docs.findOne({ _id: accountId }))?.kinds ?? [...DEFAULT_ALERT_KINDS];
  }

  // The kinds in their catalogue order, each once.
  async set(accountId: string, kinds: readonly AlertKind[]): Promise<AlertKind[]> {
    const chosen = ALERT_KINDS.filter((k) => kinds.includes(k));
    await this.docs.updateOne(
      { _id: accountId },
      { $set: { kinds: chosen, updated_at: this.clock.now() } },
      { upsert: true },
    );
    return chosen;
  }

  async ofMany(accountIds: readonly string[]): Promise<Map<string, AlertKind[]>> {
    const docs = accountIds.length === 0 ? [] : await this.docs.find({ _id: { $in: [...accountIds] } }).toArray();
    const chosen = new Map(docs.map((d) => [d._id, d.kinds]));
    return new Map(accountIds.map((id) => [id, chosen.get(id) ?? [...DEFAULT_ALERT_KINDS]]));
  }

  // The people who asked for a kind that is off by default.
  async chose(kind: AlertKind): Promise<string[]> {
    return (await this.docs.find({ kinds: kind }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
  }
}
