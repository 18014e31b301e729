import type { Collection } from 'mongodb';
import { randomId } from '../shared/ids';
import type { EndpointHealthDoc, ReplayJobDoc } from '../shared/mongo/documents';
import { ask, type CommandChannel } from './command-replies';
import type { EndpointCommand, LeadEvent } from '../shared/schemas';
import { endpointId, type DeliveryKind } from '../shared/delivery-kind';
import { DeliveryTopics } from './delivery-topics';
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
export type TestCallbackOutcome =
  { outcome: 'sent'; result: TestCallbackResult } | { outcome: 'not_found' } | { outcome: 'pending' };

// What a manager may ask of a partner's endpoints: health, a resume, a replay, a test callback or postback.
// Reads are by _id; changes go as commands (keyed by partner id on callbacks.endpoints) to the one
// dispatcher that keeps the endpoint, which alone writes its health and replay jobs and sends its
// test callbacks.
export class EndpointCommands {
  private readonly publish: DeliveryTopics;

  constructor(private readonly deps: EndpointCommandsDeps) {
    this.publish = new DeliveryTopics(deps);
  }

  async health(partnerId: string, kind: DeliveryKind = 'callback'): Promise<EndpointHealthView> {
    const endpoint = endpointId(partnerId, kind);
    const doc = await this.deps.health.findOne({ _id: endpoint });
    return healthView(doc ?? emptyHealth(endpoint, new Date()), Date.now());
  }

  // An endpoint's commands are keyed by its endpoint id: one keeper per endpoint.
  async resume(partnerId: string, by: string, kind: DeliveryKind = 'callback'): Promise<ResumeOutcome> {
    const endpoint = endpointId(partnerId, kind);
    const doc = await this.deps.health.findOne({ _id: endpoint }, { projection: { state: 1 } });
    if (doc?.state !== 'paused') return { outcome: 'not_paused' };
    const at = new Date();
    await this.publish.endpointCommands([{ kind: 'resume', partner_id: endpoint, at: at.toISOString(), by }]);
    return { outcome: 'resuming', at };
  }

  // The keeper stores the job and starts it, then replies; the answer is the job as it was stored.
  async replay(request: ReplayRequest): Promise<ReplayOutcome> {
    const command: EndpointCommand = {
      kind: 'replay',
      partner_id: request.partnerId,
      at: new Date().toISOString(),
      by: request.by,
      job_id: randomId('rp'),
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      events: [...request.events],
    };
    const reply = await ask(this.deps, (address) => this.publish.endpointCommands([{ ...command, ...address }]));
    const job = replayJobOf(command, new Date(command.at))!;
    return reply ? { outcome: 'created', job } : { outcome: 'pending', jobId: job._id };
  }

  replayJob(id: string): Promise<ReplayJobDoc | null> {
    return this.deps.jobs.findOne({ _id: id });
  }

  testCallback(partnerId: string, by: string): Promise<TestCallbackOutcome> {
    return this.test({ kind: 'test_callback', partner_id: partnerId, at: new Date().toISOString(), by });
  }

  testPostback(partnerId: string, event: LeadEvent['event'], by: string): Promise<TestCallbackOutcome> {
    return this.test({ kind: 'test_postback', partner_id: partnerId, event, at: new Date().toISOString(), by });
  }

  private async test(command: EndpointCommand): Promise<TestCallbackOutcome> {
    const reply = await ask(
      this.deps,
      (address) => this.publish.endpointCommands([{ ...command, ...address }]),
      this.deps.callbackTimeoutMs + TEST_CALLBACK_MARGIN_MS,
    );
    if (!reply) return { outcome: 'pending' };
    return reply.test ? { outcome: 'sent', result: reply.test } : { outcome: 'not_found' };
  }
}
