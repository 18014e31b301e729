// Route schemas of accounts, sessions and service accounts: they validate requests and document
// the manager OpenAPI's "Accounts" and "Sign-in" sections. One module per part; importers take them from here.
export { accountSchemas, factorResetSchema, meSchemas } from './account-schemas';
export { authSchemas, passkeySchemas } from '../../identity/manager-sign-in-schemas';
export { serviceTokenSchemas } from './service-token-schemas';
