import type { Producer } from 'kafkajs';
import type { Collection } from 'mongodb';
import { randomId } from '../shared/ids';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { EndpointHealthDoc, ReplayJobDoc } from '../shared/mongo/documents';
import { DeliveryTopics } from './delivery-task';
import { emptyHealth, healthView, type EndpointHealthView } from './endpoint-health';

export interface EndpointCommandsDeps {
  health: Collection<EndpointHealthDoc>;
  jobs: Collection<ReplayJobDoc>;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
}

export interface ReplayRequest {
  partnerId: string;
  from: Date;
  to: Date;
  events: readonly string[];
  by: string;
}

export type ResumeOutcome = { outcome: 'resuming'; at: Date } | { outcome: 'not_paused' };

// What a manager may ask of a partner's endpoint: its health, a resume, a replay. Reads are by _id;
// changes go as commands (keyed by partner id on callbacks.endpoints) to the one dispatcher that
// keeps the endpoint, which alone writes its health and runs its replays.
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

  // The job is stored first (so it can be followed at once), then handed to the endpoint's keeper.
  async replay(request: ReplayRequest): Promise<ReplayJobDoc> {
    const now = new Date();
    const job: ReplayJobDoc = {
      _id: randomId('rp'), partner_id: request.partnerId, partition: -1, from: request.from, to: request.to, events: [...request.events],
      state: 'queued', found: 0, sent: 0, requested_by: request.by, created_at: now, updated_at: now, finished_at: null, error: null,
    };
    await this.deps.jobs.insertOne(job);
    await this.publish.endpointCommands([{ kind: 'replay', partner_id: request.partnerId, at: now.toISOString(), by: request.by, job_id: job._id }]);
    return job;
  }

  replayJob(id: string): Promise<ReplayJobDoc | null> {
    return this.deps.jobs.findOne({ _id: id });
  }
}
