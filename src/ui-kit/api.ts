// The manager API as the page calls it: same origin, signed in by the session cookie (HttpOnly: the
// page never sees it). Every request that changes something carries the session's CSRF token, held
// only in this object; a 401 means the session ended.
export interface Answer<T> {
  status: number;
  body: T;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
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
  private csrf: string | null = null;

  constructor(private readonly onUnauthorized: () => void) {}

  // Every session answer brings the token (a new session id brings a new one).
  useCsrf(token: string): void {
    this.csrf = token;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  // The answer whatever its status, for routes whose absence is normal (endpoint health before it exists).
  async answer<T>(path: string): Promise<Answer<T | null>> {
    const res = await this.fetch('GET', path);
    return { status: res.status, body: res.ok ? ((await res.json()) as T) : null };
  }

  // A file the API makes (the report's CSV), saved through a link to it in memory, so a failure shows
  // as the API's message on the page rather than as a download of an error.
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
    const data = (await res.json().catch(() => ({}))) as T;
    const csrf = (data as { csrf_token?: unknown } | null)?.csrf_token;
    if (typeof csrf === 'string') this.useCsrf(csrf);
    return data;
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
      headers: {
        ...(method === 'GET' || this.csrf === null ? {} : { 'x-csrf-token': this.csrf }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  }
}

export const query = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};
