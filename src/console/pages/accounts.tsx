import { useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import { AccountRow, type AccountView, type OneTimeLink } from '../parts/account-row';
import { MailOutbox } from '../parts/mail-outbox';
import { DEFAULT_ROLE, idList, PartnersField, RoleField } from '../parts/role-fields';
import { ShownOnce } from '../../ui-kit/secrets-once';
import { isMailed, MailedNote, type LinkMailed } from '../../ui-kit/link-mailed';
import { browserZone, ErrorNote, PageHeading, ScrollTable, useAction, useLoad } from '../../ui-kit/ui';
import { useCan } from '../session';

// The whole link: the server's, when it knows its public address (CONSOLE_URL), else this page's.
const linkUrl = (l: Exclude<OneTimeLink, LinkMailed>): string => l.url ?? new URL(l.path, location.origin).href;

// People's accounts (owners and admins): invitations, roles and partners, disabling, new links.
export function AccountsPage({ api }: { api: Api }) {
  const can = useCan();
  const zone = browserZone();
  const accounts = useLoad(() => api.get<{ items: AccountView[] }>('/api/accounts'), []);
  const [shown, setShown] = useState<{ title: string; link: OneTimeLink } | null>(null);
  const showLink = (title: string, link: OneTimeLink) => {
    setShown({ title, link });
    accounts.reload();
  };

  return (
    <section>
      <PageHeading>Accounts</PageHeading>
      {shown && isMailed(shown.link) && (
        <MailedNote title={shown.title} link={shown.link} onDone={() => setShown(null)} />
      )}
      {shown && !isMailed(shown.link) && (
        <ShownOnce
          title={shown.title}
          fields={[['One-time link', linkUrl(shown.link)]]}
          doneLabel="Done, hide the link"
          onDone={() => setShown(null)}
        >
          Send this link to the person over a channel you trust; it works once, for 24 hours.
        </ShownOnce>
      )}
      {can('accounts.manage') && <InviteForm api={api} onInvited={showLink} />}
      <ErrorNote error={accounts.error} />
      {accounts.data && (
        <ScrollTable label="Accounts">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Partners</th>
              <th scope="col">State</th>
              <th scope="col">Second factors</th>
              <th scope="col">Last sign-in ({zone})</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {accounts.data.items.map((a) => (
              <AccountRow
                zone={zone}
                key={`${a.id}-${a.updated_at}`}
                api={api}
                account={a}
                onChange={accounts.reload}
                onLink={showLink}
              />
            ))}
          </tbody>
        </ScrollTable>
      )}
      <MailOutbox api={api} />
    </section>
  );
}

function InviteForm({ api, onInvited }: { api: Api; onInvited: (title: string, link: OneTimeLink) => void }) {
  const empty = { email: '', name: '', role: DEFAULT_ROLE, partners: '' };
  const [draft, setDraft] = useState(empty);
  const invite = useAction(async () => {
    const made = await api.post<{ account: AccountView; invitation: OneTimeLink }>('/api/accounts', {
      email: draft.email.trim(),
      name: draft.name.trim(),
      role: draft.role,
      partner_ids: idList(draft.partners),
    });
    setDraft(empty);
    onInvited(`Invitation for ${made.account.name}`, made.invitation);
  });
  const text = (f: 'email' | 'name') => (e: Event) => setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value });

  return (
    <form
      class="filters"
      aria-label="Invite a person"
      onSubmit={(e) => {
        e.preventDefault();
        void invite.act();
      }}
    >
      <div class="field">
        <label for="invite-email">Email</label>
        <input id="invite-email" type="email" required value={draft.email} onInput={text('email')} />
      </div>
      <div class="field">
        <label for="invite-name">Name</label>
        <input id="invite-name" required value={draft.name} onInput={text('name')} />
      </div>
      <RoleField id="invite-role" value={draft.role} onChange={(role) => setDraft({ ...draft, role })} />
      <PartnersField
        id="invite-partners"
        value={draft.partners}
        onChange={(partners) => setDraft({ ...draft, partners })}
      />
      <button type="submit" disabled={invite.busy}>
        Invite
      </button>
      <ErrorNote error={invite.error} />
    </form>
  );
}
