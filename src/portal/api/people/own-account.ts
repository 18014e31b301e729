import type { PortalAccountDoc } from '../../../identity/identity-store';
import type { OwnAccountAnswers } from '../../../identity/own-account-routes';
import { portalUserView } from './portal-users';
import { ownAccountSchemas } from './user-schemas';

// What the portal answers of a partner's person's own account (the routes are identity's, one for every realm).
export const portalOwnAccount: OwnAccountAnswers<PortalAccountDoc> = {
  schemas: ownAccountSchemas,
  me: (_, account) => ({ account: account && portalUserView(account) }),
};
