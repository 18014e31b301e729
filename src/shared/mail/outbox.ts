import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import type { Clock } from '../clock';
import type { PiiCipher } from '../crypto/pii-cipher';
import { isDuplicateKey } from '../mongo/client';
import { dueOrAbandoned, nextDue } from '../mongo/leased-work';
import { afterFailure, type MailDoc, type MailState, type RetryPolicy } from './outbox-state';
import type { TemplateName, TemplateValues } from './templates';

export const MAIL_OUTBOX = 'mail_outbox';

// A message claimed for one try, its values opened.
export interface ClaimedMail {
  id: string;
  template: TemplateName;
  to: string;
  attempts: number;
  values: Record<string, string>;
}

// Sent mail is kept this long (for the managers' list), then deleted.
const KEEP_SENT_MS = 7 * 24 * 3600 * 1000;

// The outbox in MongoDB: a request only inserts a message (no relay is reached while it waits);
// the sender claims a due one by a conditional update of its _id, so two senders never try the
// same message at once. The values (a one-time link) are encrypted with the keyring while they
// wait, and dropped once the message is sent or dead.
export class MailOutbox {
  readonly mails: Collection<MailDoc>;
  // Who hears of a message queued through this outbox (the sender in this process).
  private readonly queuedListeners = new Set<(template: TemplateName) => void>();

  constructor(
    db: Db,
    private readonly cipher: PiiCipher,
    private readonly clock: Clock,
  ) {
    this.mails = db.collection<MailDoc>(MAIL_OUTBOX);
  }

  async ensureIndexes(): Promise<void> {
    await this.mails.createIndex({ state: 1, next_at: 1 }, { name: 'state_next_at' });
  }

  async enqueue<T extends TemplateName>(template: T, to: string, values: TemplateValues<T>): Promise<string> {
    const _id = `ml-${randomBytes(8).toString('hex')}`;
    await this.insert(_id, template, to, values);
    return _id;
  }

  // A message whose id the caller derives from what it announces: the id is the fence, so the same
  // message asked for again (a redelivered event, a rescan after a restart) is queued once. False
  // when it already was.
  async enqueueOnce<T extends TemplateName>(
    _id: string,
    template: T,
    to: string,
    values: TemplateValues<T>,
  ): Promise<boolean> {
    try {
      await this.insert(_id, template, to, values);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  private async insert(_id: string, template: TemplateName, to: string, values: object): Promise<void> {
    const now = this.clock.now();
    await this.mails.insertOne({
      _id,
      state: 'queued',
      template,
      to,
      created_at: now,
      attempts: 0,
      last_error: null,
      next_at: now,
      sealed: this.cipher.encrypt(JSON.stringify(values)),
    });
    for (const heard of this.queuedListeners) heard(template);
  }

  onQueued(listener: (template: TemplateName) => void): void {
    this.queuedListeners.add(listener);
  }

  // When the next try of a message falls due (leased-work.ts); null when nothing waits.
  nextDue(): Promise<Date | null> {
    return nextDue(this.mails);
  }

  // Messages due for a try: queued ones whose time came, and claims a dead sender left behind.
  async due(limit: number): Promise<MailDoc[]> {
    const now = this.clock.now();
    return this.mails.find(dueOrAbandoned<MailDoc>(now)).sort({ next_at: 1 }).limit(limit).toArray();
  }

  // Takes one message for a try of at most leaseMs, only if nobody took it since it was read.
  async claim(doc: MailDoc, leaseMs: number): Promise<ClaimedMail | null> {
    if (doc.state !== 'queued' && doc.state !== 'sending') return null;
    const same: Filter<MailDoc> =
      doc.state === 'queued'
        ? { _id: doc._id, state: 'queued', attempts: doc.attempts }
        : { _id: doc._id, state: 'sending', attempts: doc.attempts, claimed_until: doc.claimed_until };
    const claimed_until = new Date(this.clock.now().getTime() + leaseMs);
    const taken = await this.mails.updateOne(same, {
      $set: { state: 'sending', attempts: doc.attempts + 1, claimed_until },
      $unset: { next_at: '' },
    });
    if (taken.modifiedCount !== 1) return null;
    const values = JSON.parse(this.cipher.decrypt(doc.sealed)) as Record<string, string>;
    return { id: doc._id, template: doc.template, to: doc.to, attempts: doc.attempts + 1, values };
  }

  async sent(mail: ClaimedMail): Promise<void> {
    await this.mails.updateOne(
      { _id: mail.id, state: 'sending', attempts: mail.attempts },
      {
        $set: { state: 'sent', sent_at: this.clock.now(), last_error: null },
        $unset: { sealed: '', claimed_until: '' },
      },
    );
  }

  async failed(mail: ClaimedMail, error: string, permanent: boolean, policy: RetryPolicy): Promise<MailState> {
    const next = afterFailure(mail.attempts, permanent, this.clock.now(), policy);
    const unset: Record<string, ''> = next.state === 'dead' ? { sealed: '', claimed_until: '' } : { claimed_until: '' };
    await this.mails.updateOne(
      { _id: mail.id, state: 'sending', attempts: mail.attempts },
      { $set: { ...next, last_error: error }, $unset: unset },
    );
    return next.state;
  }

  async pruneSent(): Promise<void> {
    await this.mails.deleteMany({
      state: 'sent',
      sent_at: { $lt: new Date(this.clock.now().getTime() - KEEP_SENT_MS) },
    });
  }

  // What managers see: no content, the template and the recipient only.
  async list(states: readonly MailState[], limit: number) {
    const docs = await this.mails
      .find({ state: { $in: [...states] } }, { projection: { sealed: 0 } })
      .sort({ created_at: -1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({
      id: d._id,
      state: d.state,
      template: d.template,
      to: d.to,
      attempts: d.attempts,
      last_error: d.last_error,
      created_at: d.created_at,
      next_at: d.state === 'queued' ? d.next_at : null,
    }));
  }

  // Messages in a state, counted up to `bound` (a scrape's read stays short however many wait).
  async count(state: MailState, bound: number): Promise<number> {
    return this.mails.countDocuments({ state }, { limit: bound });
  }
}
