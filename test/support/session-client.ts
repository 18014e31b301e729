import type { HttpResult } from './partner-client';
import { MANAGER_TOKEN } from './test-config';
import { totpCode } from '../../src/identity/totp';

// A browser's side of the manager API without a browser: it keeps the session cookie and the CSRF
// token the last answer gave, and sends both the way the console does.
export class SessionClient {
  cookie: string | null = null;
  csrf: string | null = null;
  // The other cookies the server set (the sign-in's device cookie) by name, with their path, sent back
  // as a browser would: only to paths under theirs.
  readonly jar = new Map<string, { value: string; path: string }>();
  // The client address a trusted proxy names in X-Forwarded-For (null: the socket's own).
  from: string | null = null;

  // The session cookie's name: the manager's, or the portal's (lit_portal).
  constructor(
    readonly baseUrl: string,
    readonly cookieName = 'lit_session',
  ) {}

  async send<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...extra };
    const others = [...this.jar].filter(([, c]) => path.startsWith(c.path)).map(([name, c]) => `${name}=${c.value}`);
    const cookies = [this.cookie, ...others].filter(Boolean);
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    if (this.from) headers['x-forwarded-for'] = this.from;
    if (this.csrf && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair, ...attributes] = set.split(';').map((part) => part.trim());
      const name = pair!.slice(0, pair!.indexOf('='));
      const cookiePath = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      if (name === this.cookieName) this.cookie = pair!;
      else this.jar.set(name, { value: pair!.slice(name.length + 1), path: cookiePath });
    }
    const text = await res.text();
    const parsed = (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}) as T;
    const csrf = (parsed as { csrf_token?: unknown }).csrf_token;
    if (typeof csrf === 'string') this.csrf = csrf;
    return { status: res.status, headers: res.headers, body: parsed };
  }

  get<T = Record<string, unknown>>(path: string) {
    return this.send<T>('GET', path);
  }

  post<T = Record<string, unknown>>(path: string, body?: unknown) {
    return this.send<T>('POST', path, body);
  }

  patch<T = Record<string, unknown>>(path: string, body: unknown) {
    return this.send<T>('PATCH', path, body);
  }
}

export interface Invited {
  id: string;
  email: string;
  token: string;
}

// An account invited with the break-glass token (or a given owner's session).
export async function invite(
  baseUrl: string,
  account: { email: string; name?: string; role: string; partner_ids?: string[]; agent_id?: string },
): Promise<Invited> {
  const res = await fetch(`${baseUrl}/api/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MANAGER_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: account.email.split('@')[0], ...account }),
  });
  const body = (await res.json()) as { account: { id: string }; invitation: { token: string } };
  if (res.status !== 201) throw new Error(`invite answered ${res.status}: ${JSON.stringify(body)}`);
  return { id: body.account.id, email: account.email, token: body.invitation.token };
}

// An invited person sets a password and TOTP through the link: a signed-in session and the secret.
export async function enrol(
  baseUrl: string,
  invited: Invited,
  password = 'correct horse battery staple',
): Promise<{ client: SessionClient; secret: string }> {
  const client = new SessionClient(baseUrl);
  await expectStatus(client.post(`/api/auth/links/use`, { token: invited.token, password }), 200);
  const setup = await expectStatus(client.post<{ secret: string }>('/api/auth/totp/setup'), 200);
  await expectStatus(client.post('/api/auth/totp/confirm', { code: totpCode(setup.body.secret, Date.now()) }), 200);
  return { client, secret: setup.body.secret };
}

export async function expectStatus<T>(answer: Promise<HttpResult<T>>, status: number): Promise<HttpResult<T>> {
  const res = await answer;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}
