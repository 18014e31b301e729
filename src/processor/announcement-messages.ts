import type { Message } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Announcements } from './announcements';

type Topic = { topic: string; messages: Message[] };

// A chunk's announcements as the topic messages of its one produce request: lead events and
// assignment feed messages, both keyed by lead id, so each topic keeps a lead's changes in order.
export async function announcementMessages(
  codec: TopicCodec,
  topics: Pick<TopicNames, 'leadEvents' | 'leadAssignments'>,
  said: Announcements,
): Promise<Topic[]> {
  const events = await Promise.all(
    said.events.map(async (e): Promise<Message> => ({ key: e.lead_id, value: await codec.encode('leadEvents', e) })),
  );
  const feed = await Promise.all(
    said.feed.map(async (a): Promise<Message> => ({ key: a.lead_id, value: await codec.encode('leadAssignments', a) })),
  );
  return [
    { topic: topics.leadEvents, messages: events },
    { topic: topics.leadAssignments, messages: feed },
  ];
}
