import type { RouteOptions } from 'fastify';

// The methods each served path takes, learnt from fastify's onRoute hook, so a request for a path
// that exists with a method it does not take gets 405 and `Allow` (RFC 9110), not 404.
export class AllowedMethods {
  private readonly routes: { pattern: RegExp; params: number; method: string; url: string }[] = [];

  record(route: Pick<RouteOptions, 'method' | 'url'>): void {
    const pattern = routePattern(route.url);
    const params = route.url.split('/').filter((part) => part.startsWith(':')).length;
    for (const method of [route.method].flat())
      this.routes.push({ pattern, params, method: method.toUpperCase(), url: route.url });
  }

  // Every route served, as fastify declares it ("/api/agents/:id").
  served(): { method: string; url: string }[] {
    return this.routes.map(({ method, url }) => ({ method, url }));
  }

  // Methods the path takes, sorted; empty when no route serves the path at all. Only the routes
  // that name it most exactly count: /deliveries/retry-dead (POST) is not a delivery that
  // /deliveries/:id (GET) would show, so its Allow is POST alone.
  forPath(path: string): string[] {
    const matching = this.routes.filter((r) => r.pattern.test(path));
    const fewest = Math.min(...matching.map((r) => r.params));
    return [...new Set(matching.filter((r) => r.params === fewest).map((r) => r.method))].sort();
  }
}

// "/api/agents/:id" matches "/api/agents/ag-1"; a parameter is one non-empty path segment.
function routePattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

// The path of a request URL, without query string.
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
