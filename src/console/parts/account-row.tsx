import { useContext, useState } from 'preact/hooks';
import type { Api } from '../../ui-kit/api';
import type { Role } from '../../identity/roles';
import { SessionContext, useCan } from '../session';
import { idList, PartnersField, RoleField, useGrantable } from './role-fields';
import { ErrorNote, useAction, whenIn } from '../../ui-kit/ui';
import type { LinkMailed } from '../../ui-kit/link-mailed';

// An invitation or password-reset link as the API shows it, once (or where it mailed it).
export type OneTimeLink =
  | {
      token: string;
      path: string;
      url: string | null;
      expires_at: string;
    }
  | LinkMailed;

export interface AccountView {
  id: string;
  email: string;
  name: string;
  role: Role;
  partner_ids: string[];
  status: 'invited' | 'active' | 'disabled';
  second_factors: { totp: boolean; passkeys: number };
  sso: { issuer: string; subject: string } | null;
  updated_at: string;
  last_sign_in_at: string | null;
}

const factors = (f: AccountView['second_factors']): string =>
  [f.totp && 'app', f.passkeys > 0 && `${f.passkeys} passkey(s)`].filter(Boolean).join(', ') || 'none';

// One account and what may be done to it: its role and partners, disabling or enabling, a new
// one-time link (an invitation again, or a password reset), resetting lost second factors. Each change
// ends its sessions.
export function AccountRow({
  api,
  account: a,
  zone,
  onChange,
  onLink,
}: {
  api: Api;
  account: AccountView;
  zone: string; // the browser's: the last sign-in is the reader's time, not a record's
  onChange: () => void;
  onLink: (title: string, link: OneTimeLink) => void;
}) {
  const can = useCan();
  const grantable = useGrantable();
  const self = useContext(SessionContext)?.account?.id === a.id;
  const may = can('accounts.manage') && grantable.includes(a.role);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState({ role: a.role, partners: a.partner_ids.join(', ') });
  const path = `/api/accounts/${encodeURIComponent(a.id)}`;
  const save = useAction(async () => {
    // Only what changed: the server refuses a change of one's own role, even to the same one.
    const partnerIds = idList(draft.partners);
    const patch = {
      ...(draft.role !== a.role && { role: draft.role }),
      ...(partnerIds.join() !== a.partner_ids.join() && { partner_ids: partnerIds }),
    };
    if (Object.keys(patch).length > 0) await api.patch(path, patch);
    setEditing(false);
    onChange();
  });
  const status = useAction(async () => {
    await api.patch(path, { status: a.status === 'disabled' ? 'active' : 'disabled' });
    onChange();
  });
  const reset = useAction(async () => {
    await api.post(`${path}/second-factors/reset`);
    onChange();
  });
  const link = useAction(async () => {
    const made = await api.post<OneTimeLink & { kind: string }>(`${path}/link`);
    onLink(`${made.kind === 'invitation' ? 'Invitation' : 'Password reset'} for ${a.name}`, made);
  });

  return (
    <>
      <tr>
        <td>{a.name}</td>
        <td>{a.email}</td>
        <td>{a.role.replace('_', ' ')}</td>
        <td class="mono">{a.partner_ids.join(', ') || '—'}</td>
        <td>
          {a.status}
          {a.sso ? ' (SSO)' : ''}
        </td>
        <td>{factors(a.second_factors)}</td>
        <td>{whenIn(a.last_sign_in_at, zone)}</td>
        <td class="actions">
          {may && (
            <>
              {!self && (
                <button
                  type="button"
                  aria-expanded={editing}
                  aria-label={`Edit ${a.name}`}
                  onClick={() => setEditing(!editing)}
                >
                  Edit
                </button>
              )}
              {!self && (
                <button
                  type="button"
                  disabled={status.busy}
                  aria-label={`${a.status === 'disabled' ? 'Enable' : 'Disable'} ${a.name}`}
                  onClick={() => void status.act()}
                >
                  {a.status === 'disabled' ? 'Enable' : 'Disable'}
                </button>
              )}
              {!self && (a.second_factors.totp || a.second_factors.passkeys > 0) && (
                <button
                  type="button"
                  disabled={reset.busy}
                  aria-label={`Reset second factors of ${a.name}`}
                  onClick={() => void reset.act()}
                >
                  Reset factors
                </button>
              )}
              {!a.sso && (
                <button
                  type="button"
                  disabled={link.busy}
                  aria-label={`New link for ${a.name}`}
                  onClick={() => void link.act()}
                >
                  New link
                </button>
              )}
            </>
          )}
        </td>
      </tr>
      {(editing || save.error || status.error || reset.error || link.error) && (
        <tr class="details">
          <td colSpan={8}>
            {editing && (
              <form
                class="filters"
                aria-label={`Role and partners of ${a.name}`}
                onSubmit={(e) => {
                  e.preventDefault();
                  void save.act();
                }}
              >
                <RoleField id={`role-${a.id}`} value={draft.role} onChange={(role) => setDraft({ ...draft, role })} />
                <PartnersField
                  id={`partners-${a.id}`}
                  value={draft.partners}
                  onChange={(partners) => setDraft({ ...draft, partners })}
                />
                <button type="submit" disabled={save.busy}>
                  Save
                </button>
              </form>
            )}
            <ErrorNote error={save.error ?? status.error ?? reset.error ?? link.error} />
          </td>
        </tr>
      )}
    </>
  );
}
