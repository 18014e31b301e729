import { useState } from 'preact/hooks';
import { query, type Api, type CursorPage } from '../../ui-kit/api';
import { CursorPager, useCursorPages } from '../../ui-kit/cursor-pages';
import { ChoiceField, ErrorNote, PageHeading, ScrollTable, when } from '../../ui-kit/ui';
import { go } from '../../ui-kit/router';
import { AUDIT_ACTIONS } from '../../shared/audit-actions';

interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  actor_name: string;
  auth_method: string | null;
  client_address: string | null;
  action: string;
  affiliate_id: string | null;
  target: string | null;
  details: Record<string, unknown>;
}

export function AuditPage({ api, params }: { api: Api; params: URLSearchParams }) {
  const filter = { affiliate_id: params.get('affiliate_id') ?? '', action: params.get('action') ?? '' };
  const [draft, setDraft] = useState(filter);
  const entries = useCursorPages(
    (cursor) => api.get<CursorPage<AuditEntry>>(`/api/audit-log${query({ ...filter, limit: 50, cursor })}`),
    params.toString(),
  );
  const set = (f: keyof typeof filter) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });

  return (
    <section>
      <PageHeading>Audit log</PageHeading>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go('audit', draft);
        }}
      >
        <div class="field">
          <label for="a-partner">Partner id</label>
          <input id="a-partner" value={draft.affiliate_id} onInput={set('affiliate_id')} />
        </div>
        <ChoiceField
          id="a-action"
          label="Action"
          value={draft.action}
          choices={AUDIT_ACTIONS}
          onChange={set('action')}
        />
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={entries.error} />
      {entries.data && (
        <>
          <ScrollTable label="Audit entries">
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Partner</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {entries.data.items.map((e) => (
                <tr key={e.id}>
                  <td>{when(e.at)}</td>
                  <td>
                    <span title={e.actor}>{e.actor_name}</span>
                    {e.auth_method && (
                      <small class="muted">
                        {' '}
                        {e.auth_method}
                        {e.client_address ? ` · ${e.client_address}` : ''}
                      </small>
                    )}
                  </td>
                  <td>{e.action}</td>
                  <td class="mono">{e.affiliate_id ?? '—'}</td>
                  <td class="mono">{e.target ?? '—'}</td>
                  <td class="mono wrap">{JSON.stringify(e.details)}</td>
                </tr>
              ))}
              {entries.data.items.length === 0 && (
                <tr>
                  <td colSpan={6}>No entries.</td>
                </tr>
              )}
            </tbody>
          </ScrollTable>
          <CursorPager pages={entries} />
        </>
      )}
    </section>
  );
}
