import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

// One owner per key across topics (Kafka Streams' co-partitioning): partition p of every topic the
// group reads goes to the same member, so a consumer reading several topics keyed by lead id sees
// every message of a lead, and no other member does. The topics must have equal partition counts
// (checked at start by assertCoPartitioned); members are ordered by id, so every member computes
// the same assignment.
export const CO_PARTITION_ASSIGNER = 'CoPartitionAssigner';

export const coPartitionAssigner: PartitionAssigner = ({ cluster }) => ({
  name: CO_PARTITION_ASSIGNER,
  version: 0,
  async assign({ members, topics }) {
    const memberIds = members.map((m) => m.memberId).sort();
    const partitions = new Set<number>();
    for (const topic of topics)
      for (const p of cluster.findTopicPartitionMetadata(topic)) partitions.add(p.partitionId);
    const owners = assignPartitionNumbers([...partitions], memberIds);
    return memberIds.map((memberId) => {
      const mine = owners.get(memberId) ?? [];
      const assignment: Record<string, number[]> = {};
      for (const topic of topics) assignment[topic] = [...mine];
      return {
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 0,
          assignment,
          userData: Buffer.alloc(0),
        }),
      };
    });
  },
  protocol({ topics }) {
    return {
      name: CO_PARTITION_ASSIGNER,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});

// Partition numbers dealt out round robin to members in id order.
export function assignPartitionNumbers(
  partitions: readonly number[],
  memberIds: readonly string[],
): Map<string, number[]> {
  const owners = new Map<string, number[]>(memberIds.map((id) => [id, []]));
  [...partitions]
    .sort((a, b) => a - b)
    .forEach((p, i) => owners.get(memberIds[i % memberIds.length] as string)?.push(p));
  return owners;
}

// Co-partitioning means nothing if the topics differ in partition count: refuse to start instead.
export function assertCoPartitioned(counts: ReadonlyMap<string, number>): void {
  const distinct = new Set(counts.values());
  if (distinct.size > 1) {
    const detail = [...counts].map(([t, n]) => `${t}=${n}`).join(', ');
    throw new Error(`topics read by one co-partitioned consumer must have equal partition counts: ${detail}`);
  }
}
