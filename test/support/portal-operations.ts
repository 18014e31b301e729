// The portal's operations as its own OpenAPI document lists them (GET /portal/api/openapi.json), for
// tests that must reach every one: a route added later is in the list without the test changing.
export interface PortalOperation {
  method: string;
  path: string; // as documented: /portal/api/leads/{id}
  access: string; // x-access: public, portal.read, portal.act, portal.users
  hasBody: boolean;
  params: string[];
}

type Doc = {
  paths: Record<
    string,
    Record<string, { 'x-access'?: string; requestBody?: unknown; parameters?: { in: string; name: string }[] }>
  >;
};

export async function portalOperations(baseUrl: string): Promise<PortalOperation[]> {
  const doc = (await (await fetch(`${baseUrl}/portal/api/openapi.json`)).json()) as Doc;
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      access: op['x-access'] ?? 'unstated',
      hasBody: op.requestBody !== undefined,
      params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
    })),
  );
}

export const operationName = (op: Pick<PortalOperation, 'method' | 'path'>): string => `${op.method} ${op.path}`;

// The path with each {param} replaced by what `value` gives for it and the resource before it
// (`leads` for /portal/api/leads/{id}); `value` throws for a parameter it does not know, so a new
// kind of parameter fails the test instead of being skipped.
export function fillPath(op: PortalOperation, value: (param: string, resource: string) => string): string {
  return op.path.replace(
    /([^/]+)\/\{(\w+)\}/g,
    (_m, resource: string, param: string) => `${resource}/${encodeURIComponent(value(param, resource))}`,
  );
}
