import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opsTools } from './ops-tools';
import { startTestApp, type TestApp } from './test-app';

// Schemathesis, a contract fuzzer nobody here wrote, against an OpenAPI document the service serves,
// with all its checks: any request the document allows that the server refuses, any answer the
// document does not describe, a wrong method answer, an auth not enforced, is a failure. One file per
// document (test/api/api-contract-*.test.ts), so the three run side by side.
//
// The service runs without the dispatcher, and test-callback is left out of the runs: no request a
// generated callback_url names can leave this machine (the callback paths have tests of their own).
// A replay for a real partner answers its documented 503 command_pending, soon (no dispatcher replies).
const HOOKS_DIR = join(__dirname, '..', 'contract');
const SEED = process.env.CONTRACT_SEED ?? '20';
// A run takes about a minute on a quiet machine; on one shared by several test runs (a load of 15 and more
// on 2 cores) the manager's took over six. A run still going after this is stuck, not slow.
export const RUN_TIMEOUT_MS = 540_000;

export interface ContractRun {
  app: TestApp;
  workDir: string;
  // `configFile`: a schemathesis.toml of the run's own (the portal's session as its document's auth).
  schemathesis(args: string[], env?: Record<string, string>, configFile?: string): Promise<Fuzzed>;
  stop(): Promise<void>;
}

export interface Fuzzed {
  code: number;
  output: string;
}

// The service of a file's contract test: started before its test, stopped after it.
export function contractRunOfFile(): () => ContractRun {
  let contract: ContractRun | undefined;
  beforeAll(async () => {
    contract = await startContractRun();
  });
  afterAll(async () => {
    await contract?.stop();
  });
  return () => contract!;
}

async function startContractRun(): Promise<ContractRun> {
  const app = await startTestApp({
    ROLE: 'ingress,processor',
    CALLBACK_ALLOW_HTTP: 'false',
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'false',
    MANAGER_COMMAND_TIMEOUT_MS: '200',
    // The fuzzer sends a wrong bearer token to every operation (its auth check); the throttle of unknown
    // tokens would then refuse the right one for the rest of the file. It has tests of its own.
    TOKEN_FAILURES_PER_ADDRESS: '100000',
  });
  const workDir = mkdtempSync(join(tmpdir(), 'schemathesis-')); // its caches and reports stay out of the checkout
  return {
    app,
    workDir,
    schemathesis: (args, env = {}, configFile) => run(app.url, workDir, args, env, configFile),
    async stop() {
      await app.destroy();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

function run(
  url: string,
  workDir: string,
  args: string[],
  env: Record<string, string>,
  configFile?: string,
): Promise<Fuzzed> {
  return new Promise((resolve) => {
    execFile(
      opsTools().SCHEMATHESIS_BIN,
      [
        ...(configFile ? ['--config-file', configFile] : []),
        'run',
        ...args,
        '-u',
        url,
        '-c',
        'all',
        '--seed',
        SEED,
        '--no-color',
      ],
      {
        cwd: workDir,
        env: { ...process.env, PYTHONPATH: HOOKS_DIR, PYTHONDONTWRITEBYTECODE: '1', ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: RUN_TIMEOUT_MS,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

// On failure the whole Schemathesis report is the message: each finding with its curl to reproduce it.
export function expectNoFinding(run: Fuzzed): void {
  if (run.code !== 0)
    throw new Error(
      `Schemathesis found mismatches between the document and the server (exit ${run.code}):\n${run.output}`,
    );
  expect(run.output).toMatch(/\d+ passed/);
}
