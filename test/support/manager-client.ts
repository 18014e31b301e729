import type { HttpResult } from './partner-client';
import { MANAGER_TOKEN } from './test-config';

// Talks to the manager API over a real socket with a manager token (or another, or none).
export class ManagerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | null = MANAGER_TOKEN,
  ) {}

  withToken(token: string | null): ManagerClient {
    return new ManagerClient(this.baseUrl, token);
  }

  get<T = Record<string, unknown>>(path: string): Promise<HttpResult<T>> {
    return this.send<T>('GET', path);
  }

  post<T = Record<string, unknown>>(path: string, body?: unknown): Promise<HttpResult<T>> {
    return this.send<T>('POST', path, body);
  }

  patch<T = Record<string, unknown>>(path: string, body: unknown): Promise<HttpResult<T>> {
    return this.send<T>('PATCH', path, body);
  }

  // A string body is sent as is, to test malformed JSON.
  async send<T>(method: string, path: string, body?: unknown): Promise<HttpResult<T>> {
    const headers: Record<string, string> = {};
    if (this.token !== null) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const raw = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: raw });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as T };
  }
}
