import { useState } from 'preact/hooks';
import type { Api, CursorPage } from '../../ui-kit/api';
import { QueueTable } from '../parts/workspace/queue-table';
import type { QueueItem } from '../parts/workspace/queue-types';
import { ErrorNote, Notice, PageHeading, useAction, useLoad } from '../../ui-kit/ui';

interface TeamAgent {
  id: string;
  name: string;
  active: boolean;
  queue: CursorPage<QueueItem>;
}

// A supervisor's team: each agent's queue (its first 20 leads), and a lead given to another active agent of the team.
export function TeamPage({ api }: { api: Api }) {
  const team = useLoad(() => api.get<{ agents: TeamAgent[] }>('/api/workspace/team?limit=20'), []);
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const reassign = useAction(async (lead: QueueItem, to: string) => {
    await api.post(`/api/workspace/leads/${encodeURIComponent(lead.id)}/reassign`, { agent_id: to });
    setDone(`${lead.id} goes to ${team.data?.agents.find((a) => a.id === to)?.name ?? to}.`);
    setTimeout(team.reload, 1500); // once the lead's owner has applied the command
  });
  const agents = team.data?.agents ?? [];

  return (
    <section>
      <PageHeading>Team</PageHeading>
      <ErrorNote error={team.error ?? reassign.error} />
      {done && <Notice>{done}</Notice>}
      {team.data && agents.length === 0 && <p>No agent names you as their supervisor yet.</p>}
      {agents.map((agent) => {
        const others = agents.filter((a) => a.id !== agent.id && a.active);
        return (
          <article key={agent.id} aria-labelledby={`agent-${agent.id}`}>
            <h2 id={`agent-${agent.id}`}>
              {agent.name}
              {agent.active ? '' : ' (inactive)'} <small class="mono">{agent.id}</small>
            </h2>
            <QueueTable
              label={`Queue of ${agent.name}`}
              items={agent.queue.items}
              action={(lead) =>
                others.length === 0 ? (
                  '—'
                ) : (
                  <form
                    aria-label={`Reassign ${lead.id}`}
                    onSubmit={(e) => {
                      e.preventDefault();
                      void reassign.act(lead, chosen[lead.id] ?? others[0]!.id);
                    }}
                  >
                    <select
                      aria-label={`Reassign ${lead.id} to`}
                      value={chosen[lead.id] ?? others[0]!.id}
                      onChange={(e) => setChosen({ ...chosen, [lead.id]: (e.target as HTMLSelectElement).value })}
                    >
                      {others.map((a) => (
                        <option key={a.id} value={a.id}>
                          {a.name}
                        </option>
                      ))}
                    </select>
                    <button type="submit" disabled={reassign.busy}>
                      Reassign
                    </button>
                  </form>
                )
              }
            />
            {agent.queue.next_cursor && <p class="hint">More leads follow in this queue.</p>}
          </article>
        );
      })}
    </section>
  );
}
