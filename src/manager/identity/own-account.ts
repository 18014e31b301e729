import { accountView } from '../../identity/accounts';
import type { AccountDoc } from '../../identity/identity-store';
import type { OwnAccountAnswers } from '../../identity/own-account-routes';
import { meSchemas } from './identity-schemas';

// What the manager API answers of someone's own account (the routes are identity's, one for every
// realm): who is calling, and the account of a person.
export const managerOwnAccount: OwnAccountAnswers<AccountDoc> = {
  schemas: meSchemas,
  me: ({ id, name, role, kind }, account) => ({
    principal: { id, name, role, kind },
    account: account && accountView(account),
  }),
};
