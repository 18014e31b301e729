import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Api } from './api';
import { href } from './router';
import { ErrorNote, useAction } from './ui';

// Who is signed in, and the way out: a disclosure button in the header opening a plain list of
// links and buttons (so it reads and tabs like the rest of the page). `items` get a close function
// (a link that navigates closes the menu).
export function AccountMenu({
  account,
  error,
  items,
}: {
  account: { name: string; role: string };
  error: unknown;
  items: (close: () => void) => ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  return (
    <div class="account-menu">
      <button type="button" aria-expanded={open} aria-controls="account-menu-items" onClick={() => setOpen(!open)}>
        {account.name} <span class="muted">({account.role.replace('_', ' ')})</span>
      </button>
      {open && <ul id="account-menu-items">{items(() => setOpen(false))}</ul>}
      <ErrorNote error={error} />
    </div>
  );
}

// The signed-in person's menu in the console (`base` /api) and the portal (/portal/api): their
// account page, signing out here or everywhere. `caption` names what they are signed in for.
export function SignedInMenu({
  api,
  base,
  account,
  caption,
  onSignedOut,
}: {
  api: Api;
  base: '/api' | '/portal/api';
  account: { name: string; role: string };
  caption?: string;
  onSignedOut: (notice: string) => void;
}) {
  const signOut = useAction(async () => {
    await api.post(`${base}/auth/sign-out`);
    onSignedOut('Signed out.');
  });
  const everywhere = useAction(async () => {
    await api.post(`${base}/me/sign-out-everywhere`);
    onSignedOut('Signed out on every device.');
  });
  return (
    <AccountMenu
      account={account}
      error={signOut.error ?? everywhere.error}
      items={(close) => (
        <>
          {caption && <li class="muted">{caption}</li>}
          <li>
            <a href={href('account')} onClick={close}>
              Your account
            </a>
          </li>
          <li>
            <button type="button" disabled={signOut.busy} onClick={() => void signOut.act()}>
              Sign out
            </button>
          </li>
          <li>
            <button type="button" disabled={everywhere.busy} onClick={() => void everywhere.act()}>
              Sign out everywhere
            </button>
          </li>
        </>
      )}
    />
  );
}
