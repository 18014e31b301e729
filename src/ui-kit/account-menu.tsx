import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNote } from './ui';

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
