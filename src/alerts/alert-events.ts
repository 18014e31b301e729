import type { Producer } from 'kafkajs';
import { endpointOwner } from '../shared/delivery-kind';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { PartnerAlert } from '../shared/schemas';

export interface AlertEventsDeps {
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
}

// What a role publishes when something a partner may be told of happens (partners.alerts, keyed
// by partner id): the event only; the alerts worker decides who hears of it.
export class AlertEvents {
  constructor(private readonly deps: AlertEventsDeps) {}

  // An endpoint (a partner id, or "<partner id>.postback") changed: paused, resumed, circuit opened or closed.
  async endpoint(endpoint: string, kind: PartnerAlert['kind'], at: Date): Promise<void> {
    const { partnerId, kind: of } = endpointOwner(endpoint);
    const alert: PartnerAlert = { kind, partner_id: partnerId, endpoint: of, at: at.toISOString() };
    const { producer, codec, topics } = this.deps;
    await producer.send({
      topic: topics.partnerAlerts,
      messages: [{ key: partnerId, value: await codec.encode('partnerAlerts', alert) }],
    });
  }
}
