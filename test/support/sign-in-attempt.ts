import { SessionClient } from './session-client';

// The password step of signing in, from a fresh session with no cookie.
export const signInAttempt = (baseUrl: string, email: string, password: string) =>
  new SessionClient(baseUrl).post('/api/auth/sign-in', { email, password });
