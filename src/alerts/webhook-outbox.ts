import type { Collection, Db, Filter } from 'mongodb';
import type { Clock } from '../shared/clock';
import { insertAllNew } from '../shared/mongo/bulk';
import { dueOrAbandoned, nextDue } from '../shared/mongo/leased-work';
import type { Alert } from './alert-kinds';
import { webhookBody, webhookId, type WebhookDoc } from './webhook-state';

// Sent posts are kept this long, then deleted.
const KEEP_MS = 7 * 24 * 3600 * 1000;

// A partner's webhook for its alerts (a partner admin names it in the portal).
export interface WebhookSettingDoc {
  _id: string; // the partner id
  url: string;
  updated_at: Date;
  updated_by: string;
}

// The alerts' posts to partners' webhooks in MongoDB: queued under the alert's fence id, claimed by
// a conditional update before each attempt (two senders never post one at once).
export class WebhookOutbox {
  readonly posts: Collection<WebhookDoc>;
  readonly settings: Collection<WebhookSettingDoc>;
  private readonly queuedListeners = new Set<() => void>();

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.posts = db.collection<WebhookDoc>('alert_webhook_outbox');
    this.settings = db.collection<WebhookSettingDoc>('alert_webhooks');
  }

  async ensureIndexes(): Promise<void> {
    await this.posts.createIndex({ state: 1, next_at: 1 }, { name: 'state_next_at' });
  }

  async urlOf(partnerId: string): Promise<string | null> {
    return (await this.settings.findOne({ _id: partnerId }))?.url ?? null;
  }

  // Only alerts whose partner has a webhook; an alert already queued is left as it is. The alerts
  // queued now (not before).
  async enqueue(alerts: readonly Alert[], periodMs: number, maxAttempts: number): Promise<Alert[]> {
    const partners = [...new Set(alerts.map((a) => a.partnerId))];
    if (partners.length === 0) return [];
    const hooked = new Set(
      (await this.settings.find({ _id: { $in: partners } }, { projection: { _id: 1 } }).toArray()).map((s) => s._id),
    );
    const now = this.clock.now();
    // One post per fence id, however often the batch names its alert.
    const byId = new Map(alerts.filter((a) => hooked.has(a.partnerId)).map((a) => [webhookId(a, periodMs), a]));
    const docs: WebhookDoc[] = [...byId].map(([_id, a]) => ({
      _id,
      partner_id: a.partnerId,
      event: `alert.${a.kind}`,
      body: webhookBody(a),
      created_at: now,
      attempts_made: 0,
      attempts_left: maxAttempts,
      last_error: null,
      last_http_status: null,
      state: 'queued',
      next_at: now,
    }));
    const taken = await insertAllNew(this.posts, docs);
    if (docs.length > 0) for (const heard of this.queuedListeners) heard();
    return [...byId].filter(([id]) => !taken.has(id)).map(([, a]) => a);
  }

  // Heard after posts are queued by this process (its sender tries them at once).
  onQueued(listener: () => void): void {
    this.queuedListeners.add(listener);
  }

  // When the next attempt falls due (leased-work.ts); null when nothing waits.
  nextDue(): Promise<Date | null> {
    return nextDue(this.posts);
  }

  async due(limit: number): Promise<WebhookDoc[]> {
    const now = this.clock.now();
    return this.posts.find(dueOrAbandoned<WebhookDoc>(now)).limit(limit).toArray();
  }

  // Takes a post for one attempt of at most leaseMs, only if nobody took it since it was read.
  async claim(doc: WebhookDoc, leaseMs: number): Promise<boolean> {
    if (doc.state !== 'queued' && doc.state !== 'sending') return false;
    // A claim a dead sender left is taken back by its own lease: another sender that took it back
    // first moved claimed_until, so this one finds nothing.
    const same: Filter<WebhookDoc> =
      doc.state === 'queued'
        ? { _id: doc._id, state: 'queued', attempts_made: doc.attempts_made }
        : { _id: doc._id, state: 'sending', attempts_made: doc.attempts_made, claimed_until: doc.claimed_until };
    const claimed_until = new Date(this.clock.now().getTime() + leaseMs);
    const taken = await this.posts.updateOne(same, {
      $set: { state: 'sending', claimed_until },
      $unset: { next_at: '' },
    });
    return taken.modifiedCount === 1;
  }

  // An attempt's outcome, written only by the sender that holds the claim.
  async settle(
    doc: WebhookDoc,
    next: { state: 'delivered' | 'dead' | 'queued'; attemptsMade: number; attemptsLeft: number; nextAt?: Date },
    result: { httpStatus: number | null; error: string | null },
  ): Promise<void> {
    const at = this.clock.now();
    const when =
      next.state === 'queued'
        ? { next_at: next.nextAt as Date }
        : next.state === 'delivered'
          ? { delivered_at: at }
          : { dead_at: at };
    await this.posts.updateOne(
      { _id: doc._id, state: 'sending', attempts_made: doc.attempts_made },
      {
        $set: {
          state: next.state,
          attempts_made: next.attemptsMade,
          attempts_left: next.attemptsLeft,
          last_error: result.error,
          last_http_status: result.httpStatus,
          ...when,
        },
        $unset: { claimed_until: '' },
      },
    );
  }

  // Posts in a state, counted up to `bound` (a scrape's read stays short however many wait).
  async count(state: WebhookDoc['state'], bound: number): Promise<number> {
    return this.posts.countDocuments({ state }, { limit: bound });
  }

  async prune(): Promise<void> {
    const before = new Date(this.clock.now().getTime() - KEEP_MS);
    await this.posts.deleteMany({ state: { $in: ['delivered', 'dead'] }, created_at: { $lt: before } });
  }
}
