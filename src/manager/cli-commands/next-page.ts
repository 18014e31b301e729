// The command that prints the next page of a cursor list (the same one with --cursor set), or null
// when the answer has no next_cursor: a short or empty page may still have one.
export function nextPageCommand(argv: readonly string[], answer: unknown): string | null {
  const cursor = (answer as { next_cursor?: unknown } | null)?.next_cursor;
  if (typeof cursor !== 'string') return null;
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--cursor') i++;
    else if (!arg.startsWith('--cursor=')) kept.push(arg);
  }
  return ['npm run manager --', ...[...kept, '--cursor', cursor].map(shellWord)].join(' ');
}

const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
