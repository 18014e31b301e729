import type { Collection } from 'mongodb';
import { findByIds } from '../../shared/mongo/bulk';
import type { LeadDoc } from '../../shared/mongo/documents';
import { queueGroup, queuePrefix, type IsTerminal, type QueueGroup } from '../../shared/store/agent-queue';
import { CURSOR_PATTERN, ListIndex, type ListEntryDoc } from '../../shared/store/list-index';
import { listPage, type CursorPage, type CursorRequest } from '../pagination';
import type { MaskedPhones } from './masked-phones';

// The parts of an agent's queue, in the order the agent works them: callbacks that are due (most
// overdue first), new assignments never worked, the other open leads by age (oldest first), then
// callbacks scheduled for later (soonest first).
const SEGMENTS = [
  { name: 'callback_due', group: 'callback', range: (now: Date) => ({ to: now }) },
  { name: 'new', group: 'new', range: () => ({}) },
  { name: 'worked', group: 'worked', range: () => ({}) },
  { name: 'callback_later', group: 'callback', range: (now: Date) => ({ from: now }) },
] as const satisfies readonly { name: string; group: QueueGroup; range: (now: Date) => { from?: Date; to?: Date } }[];
export type QueueSegment = (typeof SEGMENTS)[number]['name'];

// A queue cursor is the segment and, within it, the list cursor (`<time>|<item>`); a bare segment
// name starts that segment.
export const QUEUE_CURSOR_PATTERN = `^(${SEGMENTS.map((s) => s.name).join('|')})(\\|${CURSOR_PATTERN.slice(1, -1)})?$`;

const QUEUE_PROJECTION = {
  _id: 1,
  partner_id: 1,
  status: 1,
  is_depositor: 1,
  agent_id: 1,
  country_code: 1,
  language: 1,
  source: 1,
  callback_at: 1,
  personal_erased_at: 1,
  phone_enc: 1,
  created_at: 1,
  updated_at: 1,
} as const;
export type QueuedLead = Pick<LeadDoc, keyof typeof QUEUE_PROJECTION>;

// A row of the queue: what an agent needs to pick the next call, the number masked. No amount.
export interface QueueItem {
  id: string;
  affiliate_id: string;
  status: string;
  queue: QueueSegment;
  callback_at: Date | null;
  is_depositor: boolean;
  country_code: string | null;
  language: string | null;
  source: string | null;
  phone: string | null; // masked; null once the personal data is erased
  created_at: Date;
  updated_at: Date;
}

// Whether a stored lead is in a segment of its agent's queue now (an entry left stale by a crash
// between the writer's two writes is not shown).
export function inSegment(
  lead: QueuedLead,
  agentId: string,
  segment: QueueSegment,
  now: Date,
  isTerminal: IsTerminal,
): boolean {
  const spec = SEGMENTS.find((s) => s.name === segment)!;
  if (lead.agent_id !== agentId || queueGroup(lead, isTerminal) !== spec.group) return false;
  if (spec.group !== 'callback') return true;
  return lead.callback_at!.getTime() <= now.getTime() === (segment === 'callback_due');
}

// An agent's queue, a page at a time: each segment is one _id range read of its view (agent-queue.ts)
// and the leads by _id, so a page costs the same however many leads the store holds.
export class AgentQueueReader {
  private readonly index: ListIndex;

  constructor(
    private readonly leads: Collection<LeadDoc>,
    leadList: Collection<ListEntryDoc>,
    private readonly phones: MaskedPhones,
    private readonly isTerminal: IsTerminal,
  ) {
    this.index = new ListIndex(leadList);
  }

  async page(agentId: string, req: CursorRequest, now: Date): Promise<CursorPage<QueueItem>> {
    const [startName, ...rest] = (req.cursor ?? SEGMENTS[0].name).split('|');
    const start = SEGMENTS.findIndex((s) => s.name === startName);
    const found: { lead: QueuedLead; segment: QueueSegment }[] = [];
    for (let s = start; s < SEGMENTS.length; s++) {
      const seg = SEGMENTS[s]!;
      const page = await listPage(
        {
          index: this.index,
          query: { prefixes: [queuePrefix(seg.group, agentId)], ...seg.range(now), order: 'asc' },
          load: (ids) =>
            findByIds(this.leads, ids, { projection: QUEUE_PROJECTION }) as Promise<Map<string, QueuedLead>>,
          matches: (_e, lead) => inSegment(lead, agentId, seg.name, now, this.isTerminal),
          view: (lead) => ({ lead, segment: seg.name }),
        },
        { limit: req.limit - found.length, cursor: s === start && rest.length > 0 ? rest.join('|') : undefined },
      );
      found.push(...page.items);
      if (page.next_cursor !== null) return this.view(found, `${seg.name}|${page.next_cursor}`);
      if (found.length === req.limit) return this.view(found, SEGMENTS[s + 1]?.name ?? null);
    }
    return this.view(found, null);
  }

  private async view(
    found: { lead: QueuedLead; segment: QueueSegment }[],
    next: string | null,
  ): Promise<CursorPage<QueueItem>> {
    const phones = await this.phones.of(found.map((f) => f.lead));
    return {
      items: found.map(({ lead, segment }) => queueItem(lead, segment, phones.get(lead._id) ?? null)),
      next_cursor: next,
    };
  }
}

export function queueItem(lead: QueuedLead, segment: QueueSegment, phone: string | null): QueueItem {
  return {
    id: lead._id,
    affiliate_id: lead.partner_id,
    status: lead.status,
    queue: segment,
    callback_at: lead.callback_at ?? null,
    is_depositor: lead.is_depositor,
    country_code: lead.country_code ?? null,
    language: lead.language ?? null,
    source: lead.source ?? null,
    phone,
    created_at: lead.created_at,
    updated_at: lead.updated_at,
  };
}
