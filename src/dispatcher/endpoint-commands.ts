import type { Collection } from 'mongodb';
import { randomId } from '../shared/ids';
import type { EndpointHealthDoc, ReplayJobDoc } from '../shared/mongo/documents';
import { ask, type CommandChannel } from './command-replies';
import type { EndpointCommand } from '../shared/schemas';
import { DeliveryTopics } from './delivery-task';
import { replayJobOf } from './replay-runner';
import { emptyHealth, healthView, type EndpointHealthView } from './endpoint-health';
import type { TestCallbackResult } from './test-callback';

// A test callback waits this much longer than its attempt may take.
const TEST_CALLBACK_MARGIN_MS = 10_000;

export interface EndpointCommandsDeps extends CommandChannel {
  health: Collection<EndpointHealthDoc>;
  jobs: Collection<ReplayJobDoc>;
  callbackTimeoutMs: number;
}

export interface ReplayRequest {
  partnerId: string;
  from: Date;
  to: Date;
  events: readonly string[];
  by: string;
}

export type ResumeOutcome = { outcome: 'resuming'; at: Date } | { outcome: 'not_paused' };
export type ReplayOutcome = { outcome: 'created'; job: ReplayJobDoc } | { outcome: 'pending'; jobId: string };
export type TestCallbackOutcome = { outcome: 'sent'; result: TestCallbackResult } | { outcome: 'not_found' } | { outcome: 'pending' };

// What a manager may ask of a partner's endpoint: its health, a resume, a replay, a test callback.
// Reads are by _id; changes go as commands (keyed by partner id on callbacks.endpoints) to the one
// dispatcher that keeps the endpoint, which alone writes its health and replay jobs and sends its
// test callbacks.
export class EndpointCommands {
  private readonly publish: DeliveryTopics;

  constructor(private readonly deps: EndpointCommandsDeps) {
    this.publish = new DeliveryTopics(deps);
  }

  async health(partnerId: string): Promise<EndpointHealthView> {
    const doc = await this.deps.health.findOne({ _id: partnerId });
    return healthView(doc ?? emptyHealth(partnerId, new Date()), Date.now());
  }

  async resume(partnerId: string, by: string): Promise<ResumeOutcome> {
    const doc = await this.deps.health.findOne({ _id: partnerId }, { projection: { state: 1 } });
    if (doc?.state !== 'paused') return { outcome: 'not_paused' };
    const at = new Date();
    await this.publish.endpointCommands([{ kind: 'resume', partner_id: partnerId, at: at.toISOString(), by }]);
    return { outcome: 'resuming', at };
  }

  // The keeper stores the job and starts it, then replies; the answer is the job as it was stored.
  async replay(request: ReplayRequest): Promise<ReplayOutcome> {
    const command: EndpointCommand = {
      kind: 'replay', partner_id: request.partnerId, at: new Date().toISOString(), by: request.by, job_id: randomId('rp'),
      from: request.from.toISOString(), to: request.to.toISOString(), events: [...request.events],
    };
    const reply = await ask(this.deps, (address) => this.publish.endpointCommands([{ ...command, ...address }]));
    const job = replayJobOf(command, new Date(command.at))!;
    return reply ? { outcome: 'created', job } : { outcome: 'pending', jobId: job._id };
  }

  replayJob(id: string): Promise<ReplayJobDoc | null> {
    return this.deps.jobs.findOne({ _id: id });
  }

  async testCallback(partnerId: string, by: string): Promise<TestCallbackOutcome> {
    const reply = await ask(this.deps, (address) => this.publish.endpointCommands([{ kind: 'test_callback', partner_id: partnerId, at: new Date().toISOString(), by, ...address }]),
      this.deps.callbackTimeoutMs + TEST_CALLBACK_MARGIN_MS);
    if (!reply) return { outcome: 'pending' };
    return reply.test ? { outcome: 'sent', result: reply.test } : { outcome: 'not_found' };
  }
}
