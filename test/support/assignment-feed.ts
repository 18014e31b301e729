import type { LeadDoc } from '../../src/shared/mongo/documents';
import type { Runtime } from '../../src/shared/runtime';
import type { LeadAssignment } from '../../src/shared/schemas';
import { DEFAULT_CATALOG, INTAKE_STATUSES } from '../../src/shared/status-catalog';
import { readTopicToEnd, type ReadMessage } from './topic-reader';

const TERMINAL = new Set([
  ...DEFAULT_CATALOG.statuses.filter((s) => s.terminal).map((s) => s.code),
  ...INTAKE_STATUSES,
]);

export interface RecordedChange {
  event_id: string;
  agent_id: string | null;
  status: string;
}

// The changes of agent a lead's stored history records, read here independently of the processor's
// projection: an entry that names an agent gives the lead to it; the first terminal status or erasure
// after that takes it away.
export function recordedChanges(lead: Pick<LeadDoc, '_id' | 'history'>): RecordedChange[] {
  const out: RecordedChange[] = [];
  let held = false;
  lead.history.forEach((h, i) => {
    if (h.agent_id !== undefined) out.push({ event_id: `${lead._id}:${i}`, agent_id: h.agent_id, status: h.to });
    else if (held && (h.erased || TERMINAL.has(h.to)))
      out.push({ event_id: `${lead._id}:${i}`, agent_id: null, status: h.to });
    else return;
    held = h.agent_id !== undefined;
  });
  return out;
}

export interface FeedReport {
  changes: number; // recorded in the store
  messages: number; // on the feed for those leads, repeats included
  repeats: number; // messages beyond the first of their event_id (each the same bytes)
}

// Every change of agent the store records for `leads` has exactly one message on crm.lead-assignments
// by event_id, with the store's agent and status, under the lead's key; a repeat (a redelivered
// chunk, a send retried whole) is the same bytes under the same event_id; no other message names them.
export async function expectOneFeedMessagePerChange(
  rt: Runtime,
  leads: readonly Pick<LeadDoc, '_id' | 'history'>[],
): Promise<FeedReport> {
  const ids = new Set(leads.map((l) => l._id));
  const feed = (await readTopicToEnd<LeadAssignment>(rt, 'leadAssignments')).filter((m) => ids.has(m.value.lead_id));
  const byId = new Map<string, ReadMessage<LeadAssignment>[]>();
  for (const m of feed) byId.set(m.value.event_id, [...(byId.get(m.value.event_id) ?? []), m]);
  const recorded = leads.flatMap(recordedChanges);
  const got = recorded.map((c) => {
    const [first, ...repeats] = byId.get(c.event_id) ?? [];
    return (
      first && {
        event_id: first.value.event_id,
        agent_id: first.value.agent_id,
        status: first.value.status,
        keyed: first.key === first.value.lead_id,
        repeatsIdentical: repeats.every((r) => r.raw.equals(first.raw)),
      }
    );
  });
  expect(got).toEqual(recorded.map((c) => ({ ...c, keyed: true, repeatsIdentical: true })));
  const known = new Set(recorded.map((c) => c.event_id));
  expect([...byId.keys()].filter((id) => !known.has(id))).toEqual([]);
  return { changes: recorded.length, messages: feed.length, repeats: feed.length - byId.size };
}
