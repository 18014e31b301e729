import type { IntakeKeyStore } from '../shared/store/intake-keys';
import type { LeadKeyStore } from '../shared/store/lead-keys';
import { leadCommand, type LeadCommands } from './lead-commands';

const DAY_MS = 86_400_000;

// Erases the personal data of leads older than PERSONAL_DATA_RETENTION_DAYS, a whole UTC day at a
// time, without reading the leads: the day's key collection names its leads. Each gets an erase
// command on its keyed topic (its owner removes hashes, claims and ciphertexts), then the day's
// keys are dropped at once, which already makes every ciphertext of that day unreadable. A run cut
// short leaves the collection, so the next run sends the day's commands again (they are idempotent).
// The intake keys of that time go too (INTAKE_KEY_HOURS normally dropped them long before).
export class Retention {
  constructor(
    private readonly keys: LeadKeyStore,
    private readonly intakeKeys: Pick<IntakeKeyStore, 'dropExpired'>,
    private readonly commands: LeadCommands,
    private readonly retentionDays: number,
  ) {}

  async run(now: Date): Promise<{ days: string[]; leads: number }> {
    if (this.retentionDays === 0) return { days: [], leads: 0 };
    const days = await this.keys.daysBefore(retentionCutoff(now, this.retentionDays));
    let leads = 0;
    for (const day of days) {
      for (
        let ids = await this.keys.leadIds(day, null);
        ids.length > 0;
        ids = await this.keys.leadIds(day, ids[ids.length - 1] as string)
      ) {
        await this.commands.publish(ids.map((id) => leadCommand(id, 'erase', now, { requested_by: 'retention' })));
        leads += ids.length;
      }
      await this.keys.dropDay(day);
    }
    await this.intakeKeys.dropExpired(now, this.retentionDays * 24);
    return { days, leads };
  }
}

// Leads created before this instant are past the retention. Whole days only: the day holding the
// cutoff is kept until all of it is past, so no lead is erased early.
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}
