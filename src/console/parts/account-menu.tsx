import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { href } from '../router';
import type { Session } from '../session';
import { ErrorNote, useAction } from './ui';

// Who is signed in, and the way out: a disclosure button in the header (a plain list of links and
// buttons, so it reads and tabs like the rest of the page).
export function AccountMenu({ api, account, onSignedOut }: { api: Api; account: NonNullable<Session['account']>; onSignedOut: (notice: string) => void }) {
  const [open, setOpen] = useState(false);
  const signOut = useAction(async () => {
    await api.post('/api/auth/sign-out');
    onSignedOut('Signed out.');
  });
  const everywhere = useAction(async () => {
    await api.post('/api/me/sign-out-everywhere');
    onSignedOut('Signed out on every device.');
  });

  return (
    <div class="account-menu">
      <button type="button" aria-expanded={open} aria-controls="account-menu-items" onClick={() => setOpen(!open)}>
        {account.name} <span class="muted">({account.role.replace('_', ' ')})</span>
      </button>
      {open && (
        <ul id="account-menu-items">
          <li><a href={href('account')} onClick={() => setOpen(false)}>Your account</a></li>
          <li><button type="button" disabled={signOut.busy} onClick={() => void signOut.act()}>Sign out</button></li>
          <li><button type="button" disabled={everywhere.busy} onClick={() => void everywhere.act()}>Sign out everywhere</button></li>
        </ul>
      )}
      <ErrorNote error={signOut.error ?? everywhere.error} />
    </div>
  );
}
