import type { Collection, Db } from 'mongodb';
import { capCounterUse } from '../processor/commands';
import type { AlertsConfig } from '../shared/config';
import type { Clock } from '../shared/clock';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Redis } from '../shared/redis/client';
import { dayDocId } from '../shared/reports/cell-keys';
import { allCellsOf, CellStore, cellsCollection } from '../shared/reports/cell-store';
import type { Alert } from './alert-kinds';
import type { AlertRecipients } from './alert-recipients';
import { capAlerts, digestAlerts, graceAlert, periodStart, summaryAlert } from './alert-scans';
import { summariesDue } from './summary-days';
import type { DeadDeliveries } from './dead-deliveries';

export interface AlertScansDeps {
  db: Db;
  partners: Collection<PartnerDoc>;
  redis: Redis;
  dead: DeadDeliveries;
  recipients: AlertRecipients;
  config: AlertsConfig;
  periodMs: number;
  clock: Clock;
  tell(alerts: readonly Alert[]): Promise<void>;
}

// The reads behind the scans (alert-scans.ts decides): each a few queries, whatever the traffic.
export class AlertScans {
  private readonly cells: CellStore;

  constructor(private readonly d: AlertScansDeps) {
    this.cells = new CellStore(cellsCollection(d.db));
  }

  async all(): Promise<void> {
    const now = this.d.clock.now();
    await this.caps(now);
    await this.graces(now);
    await this.digests(now);
    await this.summaries(now);
  }

  private async caps(now: Date): Promise<void> {
    const capped = await this.d.partners
      .find({ caps: { $ne: null }, disabled: false }, { projection: { _id: 1, caps: 1, time_zone: 1, mode: 1 } })
      .toArray();
    for (const p of capped)
      await this.d.tell(capAlerts(p._id, await capCounterUse(this.d.redis, p, now), this.d.config.capWarnPercent));
  }

  private async graces(now: Date): Promise<void> {
    const noticeMs = this.d.config.graceNoticeS * 1000;
    const ending = await this.d.partners
      .find(
        { 'previous_secrets.until': { $gt: now, $lte: new Date(now.getTime() + noticeMs) } },
        { projection: { _id: 1, previous_secrets: 1 } },
      )
      .toArray();
    for (const p of ending) await this.d.tell(graceAlert(p._id, p.previous_secrets?.until, now.getTime(), noticeMs));
  }

  // Queued, then forgotten: a crash in between queues the same digests again, which their fences refuse.
  private async digests(now: Date): Promise<void> {
    const deaths = await this.d.dead.before(periodStart(now.getTime(), this.d.periodMs));
    if (deaths.length === 0) return;
    await this.d.tell(digestAlerts(deaths, this.d.periodMs));
    await this.d.dead.remove(deaths.map((x) => x._id));
  }

  // Each reader's last whole day in their zone: a partner whose readers are in several zones has
  // several days due at once; each summary's fence is its day and its reader.
  private async summaries(now: Date): Promise<void> {
    for (const partnerId of await this.d.recipients.partnersChoosing('daily_summary')) {
      const partner = await this.d.partners.findOne({ _id: partnerId }, { projection: { time_zone: 1 } });
      if (!partner) continue;
      const readers = (await this.d.recipients.of(partnerId)).filter((r) => r.kinds.includes('daily_summary'));
      for (const due of summariesDue(now.getTime(), partner.time_zone ?? null, readers)) {
        const [doc] = await this.cells.byIds([dayDocId(due.day, partnerId)]);
        await this.d.tell([summaryAlert(partnerId, due, doc ? allCellsOf(doc) : {})]);
      }
    }
  }
}
