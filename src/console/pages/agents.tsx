import { useState } from 'preact/hooks';
import type { Api, Page } from '../../ui-kit/api';
import { useCan } from '../session';
import { ErrorNote, PageHeading, Pager, ScrollTable, useAction, useLoad, when } from '../../ui-kit/ui';

interface Agent {
  id: string;
  name: string;
  active: boolean;
  countries: string[];
  languages: string[];
  last_assigned_at: string | null;
  created_at: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function AgentsPage({ api }: { api: Api }) {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const agents = useLoad(() => api.get<Page<Agent>>(`/api/agents?limit=50&offset=${offset}`), [offset]);
  const [draft, setDraft] = useState({ name: '', countries: '', languages: '' });
  const create = useAction(async () => {
    await api.post('/api/agents', {
      name: draft.name.trim(),
      countries: list(draft.countries),
      languages: list(draft.languages),
    });
    setDraft({ name: '', countries: '', languages: '' });
    agents.reload();
  });
  const toggle = useAction(async (agent: Agent) => {
    await api.patch(`/api/agents/${encodeURIComponent(agent.id)}`, { active: !agent.active });
    agents.reload();
  });
  const set = (f: keyof typeof draft) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });

  return (
    <section>
      <PageHeading>Agents</PageHeading>
      {can('agents.write') && (
        <form
          class="filters"
          aria-label="New agent"
          onSubmit={(e) => {
            e.preventDefault();
            void create.act();
          }}
        >
          <div class="field">
            <label for="agent-name">Name</label>
            <input id="agent-name" value={draft.name} onInput={set('name')} required />
          </div>
          <div class="field">
            <label for="agent-countries">Countries</label>
            <input
              id="agent-countries"
              value={draft.countries}
              onInput={set('countries')}
              placeholder="GB, DE (empty: any)"
            />
          </div>
          <div class="field">
            <label for="agent-languages">Languages</label>
            <input
              id="agent-languages"
              value={draft.languages}
              onInput={set('languages')}
              placeholder="en, de (empty: any)"
            />
          </div>
          <button type="submit" disabled={create.busy}>
            Add agent
          </button>
        </form>
      )}
      <ErrorNote error={create.error ?? toggle.error ?? agents.error} />
      {agents.data && (
        <>
          <ScrollTable label="Agents">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Countries</th>
                <th scope="col">Languages</th>
                <th scope="col">Last lead</th>
                <th scope="col">Active</th>
              </tr>
            </thead>
            <tbody>
              {agents.data.items.map((a) => (
                <tr key={a.id}>
                  <td>{a.name}</td>
                  <td class="mono">{a.id}</td>
                  <td>{a.countries.join(', ') || 'any'}</td>
                  <td>{a.languages.join(', ') || 'any'}</td>
                  <td>{when(a.last_assigned_at)}</td>
                  <td>
                    <button
                      type="button"
                      aria-pressed={a.active}
                      aria-label={`${a.name} active`}
                      disabled={toggle.busy || !can('agents.write')}
                      onClick={() => void toggle.act(a)}
                    >
                      {a.active ? 'Active' : 'Inactive'}
                    </button>
                  </td>
                </tr>
              ))}
              {agents.data.items.length === 0 && (
                <tr>
                  <td colSpan={6}>No agents yet.</td>
                </tr>
              )}
            </tbody>
          </ScrollTable>
          <Pager offset={offset} next={agents.data.next_offset} onPage={setOffset} />
        </>
      )}
    </section>
  );
}
