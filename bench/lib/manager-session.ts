import type { Pool } from 'undici';
import { totpCode } from '../../src/identity/totp';

// Where a realm's sign-in steps live and the cookie its session travels in: the manager's
// console, or the partner portal (/portal/api/auth/..., lit_portal).
export interface Realm {
  prefix: '' | '/portal';
  cookie: 'lit_session' | 'lit_portal';
}
export const MANAGER_REALM: Realm = { prefix: '', cookie: 'lit_session' };
export const PORTAL_REALM: Realm = { prefix: '/portal', cookie: 'lit_portal' };

// A person's session as the console (or the portal's pages) gets one, over a bench connection: the
// invitation link sets the password, TOTP is set up and confirmed with a code computed from its
// secret; each answer's session cookie and csrf_token are kept and sent with the next step.
export async function signedInSession(
  pool: Pool,
  invitationToken: string,
  password: string,
  realm: Realm = MANAGER_REALM,
): Promise<{ cookie: string; csrf: string }> {
  let cookie = '';
  let csrf = '';
  const step = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(cookie && { cookie }),
      ...(csrf && { 'x-csrf-token': csrf }),
    };
    const res = await pool.request({
      method: 'POST',
      path: `${realm.prefix}${path}`,
      headers,
      body: JSON.stringify(body),
    });
    const answer = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode !== 200)
      throw new Error(`POST ${realm.prefix}${path} answered ${res.statusCode}: ${JSON.stringify(answer)}`);
    const set = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith(`${realm.cookie}=`));
    if (set) cookie = set.split(';')[0]!;
    if (typeof answer.csrf_token === 'string') csrf = answer.csrf_token;
    return answer;
  };
  await step('/api/auth/links/use', { token: invitationToken, password });
  const setup = await step('/api/auth/totp/setup', {});
  await step('/api/auth/totp/confirm', { code: totpCode(setup.secret as string, Date.now()) });
  return { cookie, csrf };
}
