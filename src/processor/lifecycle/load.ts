import type { Decoded } from '../../shared/kafka/batch-consumer';
import type { LeadDoc } from '../../shared/mongo/documents';
import type { LeadCommand } from '../../shared/schemas';
import type { LeadStore } from '../../shared/store/leads';
import type { ParkedMessages } from '../parked-messages';
import type { Input } from './decide';
import type { ChunkOrigin, LeadCache } from './lead-cache';
import { recordOf, type LifecycleMessage } from './records';

export interface LoadDeps {
  leads: Pick<LeadStore, 'byIds'>;
  parked: Pick<ParkedMessages, 'byIds'>;
}

// A lead as read for a chunk, and whether it came from memory rather than from the store just now.
interface ReadLead {
  lead: LeadDoc;
  cached: boolean;
}

// The load step of a lifecycle chunk: the messages to decide (parked ones named by retry_parked
// commands, read in one look-up) and their leads (memory first, the rest in one look-up).
export class LoadStep {
  constructor(
    private readonly d: LoadDeps,
    private readonly cache: LeadCache,
  ) {}

  // The chunk's records with each retry_parked command replaced by the message it names; `gone`
  // are the commands whose message is gone (applied or dead-lettered meanwhile).
  async inputs(
    records: readonly Decoded<LifecycleMessage>[],
  ): Promise<{ inputs: Input[]; gone: Decoded<LifecycleMessage>[] }> {
    const retries = records.filter(
      (r) => r.topic === 'leadCommands' && (r.value as LeadCommand).kind === 'retry_parked',
    );
    const parkedId = (r: Decoded<LifecycleMessage>) => (r.value as LeadCommand).parked_id ?? '';
    const docs = retries.length > 0 ? await this.d.parked.byIds(retries.map(parkedId)) : new Map();
    const gone: Decoded<LifecycleMessage>[] = [];
    const inputs = records.flatMap((record): Input[] => {
      if (!retries.includes(record)) return [{ record }];
      const parked = docs.get(parkedId(record));
      if (!parked) gone.push(record);
      return parked ? [{ record: recordOf(parked), parked }] : [];
    });
    return { inputs, gone };
  }

  // The leads `ids` as this owner last knew them for the chunk's partition, the others from the store
  // (and kept; a lead not found is not created yet, or is not ours to know).
  async leads(ids: readonly string[], at: ChunkOrigin): Promise<Map<string, ReadLead>> {
    const read = new Map<string, ReadLead>();
    for (const id of ids) {
      const lead = this.cache.get(at.partition, id);
      if (lead) read.set(id, { lead, cached: true });
    }
    const missing = ids.filter((id) => !read.has(id));
    if (missing.length === 0) return read;
    for (const lead of (await this.d.leads.byIds(missing)).values()) {
      this.cache.remember(at, lead);
      read.set(lead._id, { lead, cached: false });
    }
    return read;
  }
}
