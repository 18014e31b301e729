import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const SDKS = join(__dirname, '..', '..', 'sdks');

export interface Run {
  code: number | null;
  output: string;
  ms: number;
}

// Runs a command to its end with extra environment variables; its output is kept for the failure message.
export function runCommand(
  command: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: 'pipe' });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => resolve({ code: -1, output: `${command} could not run: ${e.message}`, ms: 0 }));
    child.on('close', (code) => resolve({ code, output, ms: Date.now() - started }));
  });
}

// A run's failure shows what it printed.
export function expectPassed(run: Run | undefined): void {
  if (!run) throw new Error('the run did not happen');
  if (run.code !== 0) throw new Error(`exit ${run.code} after ${run.ms} ms:\n${run.output.slice(-6000)}`);
}
