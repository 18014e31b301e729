import { KafkaJSError, type Admin } from 'kafkajs';

type TopicOffsets = Awaited<ReturnType<Admin['fetchTopicOffsets']>>;

// Where each partition of `topic` starts and ends now. kafkajs asks for the ends and the starts in two
// requests, from the metadata it holds; when a partition's leader moves in between (a topic just
// created, a broker restarting) one answer comes back empty and kafkajs fails with a TypeError. That
// is a moment's state, so it is a retriable error here, like a leader not available.
export async function topicOffsets(admin: Pick<Admin, 'fetchTopicOffsets'>, topic: string): Promise<TopicOffsets> {
  try {
    return await admin.fetchTopicOffsets(topic);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    throw new KafkaJSError(`the offsets of ${topic} came back incomplete (${err.message})`, { retriable: true });
  }
}
