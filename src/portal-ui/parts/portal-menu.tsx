import type { Api } from '../../ui-kit/api';
import { AccountMenu } from '../../ui-kit/account-menu';
import { useAction } from '../../ui-kit/ui';
import { AUTH, type PortalSession } from '../session';

// The portal's account menu: the partner signed in for, and signing out.
export function PortalMenu({
  api,
  account,
  onSignedOut,
}: {
  api: Api;
  account: NonNullable<PortalSession['account']>;
  onSignedOut: (notice: string) => void;
}) {
  const signOut = useAction(async () => {
    await api.post(`${AUTH}/sign-out`);
    onSignedOut('Signed out.');
  });
  return (
    <AccountMenu
      account={account}
      error={signOut.error}
      items={() => (
        <>
          <li class="muted">{account.partner_name ?? account.partner_id}</li>
          <li>
            <button type="button" disabled={signOut.busy} onClick={() => void signOut.act()}>
              Sign out
            </button>
          </li>
        </>
      )}
    />
  );
}
