// The name of the console's session cookie (also in the manager OpenAPI document).
export const SESSION_COOKIE = 'lit_session';
