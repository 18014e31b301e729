import { nextPageCommand, parseCommand, usage, UsageError } from './cli-commands';

// The two commands that work on the store and Kafka themselves, loaded only when named: their drivers
// are most of a second of a start that every other command, a single HTTP call, need not pay.
const LOCAL_COMMANDS: Record<string, () => (env: NodeJS.ProcessEnv) => Promise<unknown>> = {
  'rebuild-reports': () =>
    (require('./reports/rebuild-command') as typeof import('./reports/rebuild-command')).rebuildReportsCommand,
  'rebuild-lists': () =>
    (require('./rebuild-lists-command') as typeof import('./rebuild-lists-command')).rebuildListsCommand,
};

// `npm run manager -- <command> [id] [--flags]`: the manager API from a shell, against a running
// service (MANAGER_URL, MANAGER_TOKEN). Prints the JSON answer; on an error answer prints its body
// to stderr and exits 1; on a usage mistake exits 2. A cursor list's next page is named on stderr,
// so stdout stays one JSON document.
async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    process.stdout.write(`${usage()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const local = Object.hasOwn(LOCAL_COMMANDS, argv[0]!) ? LOCAL_COMMANDS[argv[0]!] : undefined;
  if (local) {
    if (argv.length > 1) throw new UsageError(`${argv[0]} takes no arguments`);
    process.stdout.write(`${JSON.stringify(await local()(process.env), null, 2)}\n`);
    return 0;
  }
  const request = parseCommand(argv);
  const token = process.env.MANAGER_TOKEN;
  if (!token)
    throw new UsageError(
      "set MANAGER_TOKEN to a service account's token (lit_...), or for recovery to one of MANAGER_TOKENS",
    );
  const base = (process.env.MANAGER_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.body) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers,
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
  const text = await res.text();
  const answer = parsed(text);
  const out = res.ok ? process.stdout : process.stderr;
  out.write(`${answer === undefined ? text : JSON.stringify(answer, null, 2)}\n`);
  const next = res.ok ? nextPageCommand(argv, answer) : null;
  if (next) process.stderr.write(`next page: ${next}\n`);
  return res.ok ? 0 : 1;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${usage()}\n`);
      process.exit(2);
    }
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  },
);
