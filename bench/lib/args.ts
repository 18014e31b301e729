// The value after `--name` on the command line of a bench script run on its own, or `dflt`.
export function argValue(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : dflt;
}
