// The manager API as the page calls it: same origin, the token in an Authorization header. The token
// lives only in this object (memory): never in storage, a cookie or a URL, gone on reload or sign-out.
export interface Answer<T> {
  status: number;
  body: T;
}

export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export interface Page<T> {
  items: T[];
  next_offset: number | null;
}

// The big lists (deliveries, leads, an agent's leads, the audit log) page by cursor: pass
// next_cursor back as `cursor`; null on the last page.
export interface CursorPage<T> {
  items: T[];
  next_cursor: string | null;
}

export class Api {
  constructor(private readonly token: string, private readonly onUnauthorized: () => void) {}

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', path, body);
  }

  // The answer whatever its status, for routes whose absence is normal (endpoint health before it exists).
  async answer<T>(path: string): Promise<Answer<T | null>> {
    const res = await this.fetch('GET', path);
    return { status: res.status, body: res.ok ? ((await res.json()) as T) : null };
  }

  // A file the API makes (the report's CSV), saved through a link to it in memory: the token goes in
  // the header, so a plain link to the route could not carry it.
  async download(path: string, filename: string): Promise<void> {
    const res = await this.fetch('GET', path);
    if (!res.ok) throw await this.failure(res);
    const url = URL.createObjectURL(await res.blob());
    const link = Object.assign(document.createElement('a'), { href: url, download: filename });
    link.click();
    // Revoked once the browser has taken the file.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetch(method, path, body);
    if (!res.ok) throw await this.failure(res);
    return (await res.json().catch(() => ({}))) as T;
  }

  // The API's own error code and message; a 401 signs the page out.
  private async failure(res: Response): Promise<ApiFailure> {
    const data = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
    if (res.status === 401) this.onUnauthorized();
    return new ApiFailure(res.status, data.error ?? 'error', data.message ?? `The server answered ${res.status}`);
  }

  private fetch(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  }
}

// Checks a token before the console keeps it: any manager route answers 401 for a wrong one.
export async function tokenWorks(token: string): Promise<boolean> {
  const res = await fetch('/api/affiliates?limit=1', { headers: { authorization: `Bearer ${token}` }, credentials: 'omit', cache: 'no-store' });
  if (res.status === 401) return false;
  if (!res.ok) throw new ApiFailure(res.status, 'error', `The server answered ${res.status}; try again`);
  return true;
}

export const query = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};
