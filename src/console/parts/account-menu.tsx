import type { Api } from '../../ui-kit/api';
import { AccountMenu as Menu } from '../../ui-kit/account-menu';
import { href } from '../../ui-kit/router';
import { useAction } from '../../ui-kit/ui';
import type { Session } from '../session';

// The console's account menu: the account page, signing out here or everywhere.
export function AccountMenu({
  api,
  account,
  onSignedOut,
}: {
  api: Api;
  account: NonNullable<Session['account']>;
  onSignedOut: (notice: string) => void;
}) {
  const signOut = useAction(async () => {
    await api.post('/api/auth/sign-out');
    onSignedOut('Signed out.');
  });
  const everywhere = useAction(async () => {
    await api.post('/api/me/sign-out-everywhere');
    onSignedOut('Signed out on every device.');
  });
  return (
    <Menu
      account={account}
      error={signOut.error ?? everywhere.error}
      items={(close) => (
        <>
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
