// How long a partner asked us to wait (RFC 9110 10.2.3): Retry-After as whole seconds or as an
// HTTP date. Null when the header is absent or unreadable; a date in the past asks for no wait.
export function retryAfterMs(header: string | null | undefined, nowMs: number): number | null {
  const text = header?.trim();
  if (!text) return null;
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // HTTP dates (IMF-fixdate, RFC 850, asctime) all start with the day's name.
  if (!/^[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

// Only these answers carry a Retry-After we follow: "too many requests" and "unavailable".
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);
