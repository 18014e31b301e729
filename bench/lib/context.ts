import { join } from 'node:path';
import type { Watched } from './proc';
import { listenerPids, portOf, processInfo } from './proc';
import { servicesEnv } from './env';

export interface Options {
  quick: boolean;
  only: string[] | null;
  logLevel: string;
  // CPU profiles of the roles, summarised over the intake steps or over the status lookup step.
  profile: false | 'intake' | 'status';
  // On-CPU profiles of the pipeline's roles with Linux perf over the intake steps (--perf).
  perf: boolean;
  partners: number;
  duplicateShare: number;
  ingressRates: number[];
  pipelineRates: number[];
  stepS: number;
  storedLeads: number; // leads seeded into the store before the `stored` scenario's load
  viewDocs: number; // read-model documents stored for the `views` scenario
  instances: number; // of each role in the pipeline scenarios
  soakMinutes: number;
  soakRate: number;
  backlog: number; // lead events in the dispatcher scenario's backlog drains
  backlogSeconds: number; // the longest each backlog drain is measured (--backlog-seconds, 300)
  idleS: number; // seconds each layout of the stack is left at rest in the `idle` scenario
  keepSeed: string | null; // portal: a file naming a seeded database kept for the next run (seeded once, measured again)
  out: string | null;
  nodeOptions: string[];
  roleEnv: Record<string, string>; // settings for the roles (--role-env K=V,K=V), e.g. DISTRIBUTION_INTERVAL_MS=60000
}

export interface Table {
  title: string;
  columns: string[];
  rows: (string | number | null)[][];
  note?: string;
}

// What every scenario returns: tables to print, and the figures (JSON) to keep and compare.
export interface ScenarioResult {
  name: string;
  title: string;
  tables: Table[];
  data: Record<string, unknown>;
  notes: string[];
}

export interface BenchContext {
  opts: Options;
  runDir: string; // logs and CPU profiles of this run
  log(msg: string): void;
  services(): Watched[];
  // Which process serves each server right now (pid, start time, command line): a run whose
  // scenarios saw different processes (a restart, another build, another backend) is not one setup.
  serverIdentity(): Record<string, unknown>;
}

export function makeContext(opts: Options, runDir: string): BenchContext {
  const env = servicesEnv();
  const ports: [string, number][] = [
    ['kafka', portOf(`kafka://${env.KAFKA_BROKERS.split(',')[0]}`, 9092)],
    ['mongo-wire', portOf(env.MONGO_URL, 27017)],
    ['redis', portOf(env.REDIS_URL, 6379)],
    ['registry', portOf(env.SCHEMA_REGISTRY_URL, 8081)],
  ];
  // Looked up again every time (a server may be restarted by someone else during a run).
  const listeners = () => listenerPids(ports.map(([, port]) => port));
  return {
    opts,
    runDir,
    log: (msg) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`),
    services() {
      const pids = listeners();
      const found = ports.flatMap(([name, port]) => {
        const pid = pids.get(port);
        return pid ? [{ name, pid }] : [];
      });
      return [...found, { name: 'bench', pid: process.pid }];
    },
    serverIdentity() {
      const pids = listeners();
      return Object.fromEntries(
        ports.map(([name, port]) => {
          const pid = pids.get(port);
          return [name, pid ? { port, pid, ...processInfo(pid) } : { port, pid: null }];
        }),
      );
    },
  };
}

export const logDirOf = (ctx: BenchContext, scenario: string): string => join(ctx.runDir, scenario);
