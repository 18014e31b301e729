import type { FastifyInstance } from 'fastify';
import type { Producer } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { ReadinessCheck } from './http/ops-routes';
import type { TopicCodec } from './kafka/codec';
import type { ConsumerClients } from './kafka/consumer-settings';
import type { TopicNames } from './kafka/topics';
import type { Logger } from './logger';
import type { Mongo } from './mongo/client';
import type { PartnerDirectory } from './partners/partner-directory';
import type { Redis } from './redis/client';

// The clients every role is given (src/role-deps.ts picks them from the runtime); each role's deps
// add the few others it uses and the settings it reads.
export interface RoleClients {
  consumers: ConsumerClients;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  mongo: Mongo;
  redis: Redis;
  partners: PartnerDirectory;
  metrics: Registry;
  logger: Logger;
}

// What a started role gives back to the process: optional HTTP routes, its own readiness checks
// (consumers running) and a stop that drains in-flight work.
export interface RoleHandle {
  name: string;
  routes?: (app: FastifyInstance) => Promise<void>;
  readiness?: ReadinessCheck[];
  stop(): Promise<void>;
}
