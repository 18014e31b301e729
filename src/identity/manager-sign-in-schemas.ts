import { PERMISSIONS } from './roles';
import { nullable, str } from '../shared/http/schema-parts';
import { role } from './identity-schema-parts';
import { signInSchemas } from './sign-in-schemas';

// The sign-in steps' schemas of the manager's realm: its roles and the role matrix's permissions.
export const managerSignIn = signInSchemas({
  account: {
    id: str,
    name: str,
    role,
    partner_ids: { type: 'array', items: str },
    agent_id: nullable('string'),
    method: str,
  },
  role,
  permissions: PERMISSIONS,
});
export const authSchemas = managerSignIn.auth;
export const passkeySchemas = managerSignIn.passkey;
