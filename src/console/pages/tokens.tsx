import { useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import type { Role } from '../../identity/roles';
import { DEFAULT_ROLE, idList, PartnersField, RoleField, useGrantable } from '../parts/role-fields';
import { ShownOnce } from '../../ui-kit/secrets-once';
import { ErrorNote, PageHeading, ScrollTable, useAction, useLoad, when } from '../../ui-kit/ui';

interface ServiceAccount {
  id: string;
  name: string;
  role: Role;
  partner_ids: string[];
  prefix: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

// Service accounts: tokens for machines (the CLI, a CRM's integration), each with a role and an
// expiry; the token is shown once, then only its prefix.
export function TokensPage({ api }: { api: Api }) {
  const tokens = useLoad(() => api.get<{ items: ServiceAccount[] }>('/api/service-accounts'), []);
  const [made, setMade] = useState<{ name: string; token: string } | null>(null);
  const grantable = useGrantable();
  const revoke = useAction(async (t: ServiceAccount) => {
    await api.delete(`/api/service-accounts/${encodeURIComponent(t.id)}`);
    tokens.reload();
  });
  const live = (t: ServiceAccount) => t.revoked_at === null && new Date(t.expires_at).getTime() > Date.now();

  return (
    <section>
      <PageHeading>Tokens</PageHeading>
      {made && (
        <ShownOnce
          title={`Token for ${made.name}`}
          fields={[['Token', made.token]]}
          doneLabel="Done, hide the token"
          onDone={() => setMade(null)}
        >
          Copy it into the machine's secret store now; the service keeps only its hash.
        </ShownOnce>
      )}
      <NewToken
        api={api}
        onMade={(name, token) => {
          setMade({ name, token });
          tokens.reload();
        }}
      />
      <ErrorNote error={tokens.error ?? revoke.error} />
      {tokens.data && (
        <ScrollTable label="Service accounts">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Role</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.items.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td class="mono">{t.prefix}…</td>
                <td>
                  {t.role.replace('_', ' ')}
                  {t.partner_ids.length > 0 ? ` (${t.partner_ids.join(', ')})` : ''}
                </td>
                <td>{when(t.expires_at)}</td>
                <td>{when(t.last_used_at)}</td>
                <td>{t.revoked_at ? `revoked ${when(t.revoked_at)}` : live(t) ? 'active' : 'expired'}</td>
                <td class="actions">
                  {live(t) && grantable.includes(t.role) && (
                    <button
                      type="button"
                      aria-label={`Revoke ${t.name}`}
                      disabled={revoke.busy}
                      onClick={() => void revoke.act(t)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {tokens.data.items.length === 0 && (
              <tr>
                <td colSpan={7}>No service accounts yet.</td>
              </tr>
            )}
          </tbody>
        </ScrollTable>
      )}
    </section>
  );
}

function NewToken({ api, onMade }: { api: Api; onMade: (name: string, token: string) => void }) {
  const empty = { name: '', role: DEFAULT_ROLE, partners: '', days: '90' };
  const [draft, setDraft] = useState(empty);
  const create = useAction(async () => {
    const made = await api.post<ServiceAccount & { token: string }>('/api/service-accounts', {
      name: draft.name.trim(),
      role: draft.role,
      partner_ids: idList(draft.partners),
      expires_in_days: Number(draft.days),
    });
    setDraft(empty);
    onMade(made.name, made.token);
  });
  const text = (f: 'name' | 'days') => (e: Event) => setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });

  return (
    <form
      class="filters"
      aria-label="New service account"
      onSubmit={(e) => {
        e.preventDefault();
        void create.act();
      }}
    >
      <div class="field">
        <label for="token-name">Name</label>
        <input id="token-name" required maxLength={200} value={draft.name} onInput={text('name')} />
      </div>
      <RoleField id="token-role" value={draft.role} onChange={(role) => setDraft({ ...draft, role })} />
      <PartnersField
        id="token-partners"
        value={draft.partners}
        onChange={(partners) => setDraft({ ...draft, partners })}
      />
      <div class="field">
        <label for="token-days">Expires in (days)</label>
        <input id="token-days" type="number" min={1} max={730} required value={draft.days} onInput={text('days')} />
      </div>
      <button type="submit" disabled={create.busy}>
        Create token
      </button>
      <ErrorNote error={create.error} />
    </form>
  );
}
