// Where a sign-in stands, as every session answer says it (GET /api/session for the console,
// GET /portal/api/session for the portal): the steps of signing in read only this much of it.
export interface AuthSession {
  stage: 'second_factor' | 'enroll' | 'signed_in' | null;
  csrf_token: string;
  // Given by the password step: which second factors the account has.
  second_factors?: { totp: boolean; passkey: boolean };
}
