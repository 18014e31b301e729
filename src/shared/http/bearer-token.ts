// The token of an "Authorization: Bearer <token>" header, or null when the header is absent or malformed.
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}
