import { kafkaAdmin } from './setup';

// Messages on each of the scenario's topics so far (the sum of the partitions' high watermarks),
// by topic name without the scenario's prefix: read before and after a step, the difference is what
// the roles produced during it. Every message is a produce on one side and a fetch and decode on
// each consumer group's, so messages a lead are a measure of the pipeline's work, like commands.
export async function topicMessages(env: Record<string, string>): Promise<Map<string, number>> {
  const prefix = env.TOPIC_PREFIX as string;
  const admin = kafkaAdmin(env);
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    const counts = await Promise.all(
      topics.map(async (t) => {
        const ends = await admin.fetchTopicOffsets(t);
        return [t.slice(prefix.length), ends.reduce((sum, p) => sum + Number(p.high), 0)] as const;
      }),
    );
    return new Map(counts);
  } finally {
    await admin.disconnect();
  }
}
