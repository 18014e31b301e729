import { COMMANDS } from './commands';

// The help text: every command with its flags, then the two that run here rather than through the API.

export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => {
    const flags = Object.keys(c.flags ?? {}).map((f) => `[--${f}]`);
    if (c.sends === 'body') flags.push('[--json <object>]');
    return `  ${[name, c.needsId && `<${c.needsId}>`, ...flags].filter(Boolean).join(' ')}\n      ${c.summary}`;
  });
  return [
    'usage: npm run manager -- <command> [id] [--flags]',
    'env: MANAGER_URL (default http://127.0.0.1:8080), MANAGER_TOKEN (required: a service account token, lit_...)',
    'lists are comma-separated; --callback-url none and --risk-threshold none clear them; --json merges a raw JSON body last',
    "list-deliveries, leads, agent-leads and audit-log page by --cursor (the next_cursor printed; stderr names the next page's command)",
    '',
    ...lines,
    '  rebuild-reports',
    "      Recompute the reports from the stored leads: runs here, against MONGO_URL and MONGO_DB (the service's configuration), not the API",
    '  rebuild-lists',
    '      List every stored lead, delivery and audit entry again (after an upgrade from a version without lists); runs here like rebuild-reports',
  ].join('\n');
}
