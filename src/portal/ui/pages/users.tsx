import { useContext, useState } from 'preact/hooks';
import type { Api } from '../../../ui-kit/api';
import { ShownOnce } from '../../../ui-kit/secrets-once';
import { isMailed, MailedNote, type LinkMailed } from '../../../ui-kit/link-mailed';
import { ErrorNote, PageHeading, ScrollTable, useAction, useLoad, whenIn } from '../../../ui-kit/ui';
import { SessionContext, useCan } from '../session';
import type { PortalUser } from '../types.generated';
import { useZone } from '../zone';

type OneTimeLink = { url: string; expires_at: string } | LinkMailed;

// The partner's people in the portal (a partner_admin's page): invite a colleague (the one-time
// link shown once), disable one who left.
export function UsersPage({ api }: { api: Api }) {
  const can = useCan();
  const { zone } = useZone();
  const users = useLoad(() => api.get<{ items: PortalUser[] }>('/portal/api/users'), []);
  const [shown, setShown] = useState<{ name: string; link: OneTimeLink } | null>(null);
  return (
    <section>
      <PageHeading>Users</PageHeading>
      {shown && isMailed(shown.link) && (
        <MailedNote title={`Invitation for ${shown.name}`} link={shown.link} onDone={() => setShown(null)} />
      )}
      {shown && !isMailed(shown.link) && (
        <ShownOnce
          title={`Invitation for ${shown.name}`}
          fields={[['One-time link', shown.link.url]]}
          doneLabel="Done, hide the link"
          onDone={() => setShown(null)}
        >
          Send this link to your colleague over a channel you trust; it works once, until{' '}
          {whenIn(shown.link.expires_at, zone)} {zone}.
        </ShownOnce>
      )}
      {can('portal.users') && (
        <InviteForm
          api={api}
          onInvited={(name, link) => {
            setShown({ name, link });
            users.reload();
          }}
        />
      )}
      <ErrorNote error={users.error} />
      {users.data && (
        <ScrollTable label="Users">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
              <th scope="col">Last sign-in ({zone})</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data.items.map((u) => (
              <UserRow key={`${u.id}-${u.status}`} api={api} user={u} zone={zone} onChange={users.reload} />
            ))}
          </tbody>
        </ScrollTable>
      )}
    </section>
  );
}

function UserRow({ api, user, zone, onChange }: { api: Api; user: PortalUser; zone: string; onChange: () => void }) {
  const can = useCan();
  // Nobody disables themselves (the server refuses it too).
  const me = useContext(SessionContext)?.account;
  const disable = useAction(async () => {
    await api.post(`/portal/api/users/${encodeURIComponent(user.id)}/disable`);
    onChange();
  });
  return (
    <tr>
      <td>{user.name}</td>
      <td class="wrap">{user.email}</td>
      <td>{user.role.replace('_', ' ')}</td>
      <td>{user.status}</td>
      <td>{whenIn(user.last_sign_in_at, zone)}</td>
      <td class="actions">
        {can('portal.users') && user.status !== 'disabled' && user.id !== me?.id && (
          <button type="button" disabled={disable.busy} onClick={() => void disable.act()}>
            Disable {user.name}
          </button>
        )}
        <ErrorNote error={disable.error} />
      </td>
    </tr>
  );
}

function InviteForm({ api, onInvited }: { api: Api; onInvited: (name: string, link: OneTimeLink) => void }) {
  const empty = { email: '', name: '', role: 'partner_viewer' };
  const [draft, setDraft] = useState(empty);
  const invite = useAction(async () => {
    const made = await api.post<{ user: PortalUser; link: OneTimeLink }>('/portal/api/users', {
      email: draft.email.trim(),
      name: draft.name.trim(),
      role: draft.role,
    });
    setDraft(empty);
    onInvited(made.user.name, made.link);
  });
  const set = (f: keyof typeof empty) => (e: Event) =>
    setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });
  return (
    <form
      class="filters"
      aria-label="Invite a colleague"
      onSubmit={(e) => {
        e.preventDefault();
        void invite.act();
      }}
    >
      <div class="field">
        <label for="invite-email">Email</label>
        <input id="invite-email" type="email" required value={draft.email} onInput={set('email')} />
      </div>
      <div class="field">
        <label for="invite-name">Name</label>
        <input id="invite-name" required value={draft.name} onInput={set('name')} />
      </div>
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" value={draft.role} onChange={set('role')}>
          <option value="partner_viewer">partner viewer (reads only)</option>
          <option value="partner_admin">partner admin (acts, invites)</option>
        </select>
      </div>
      <button type="submit" disabled={invite.busy}>
        Invite
      </button>
      <ErrorNote error={invite.error} />
    </form>
  );
}
