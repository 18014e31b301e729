import { isRetriable, untilDone } from '../../src/shared/retriable';
import { topicOffsets } from '../../src/shared/kafka/topic-offsets';

// kafkajs fails with a TypeError when one of its two offset answers comes back empty (a partition's
// leader moving between them): a reply consumer starting then tries again instead of failing its role.
const ends = [{ partition: 0, offset: '7', high: '7', low: '0' }];
const kafkajsIncomplete = () =>
  new TypeError("Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined.");

describe('topic offsets', () => {
  it('are read again after kafkajs read an incomplete answer', async () => {
    let calls = 0;
    const admin = {
      fetchTopicOffsets: async () => {
        if (++calls === 1) throw kafkajsIncomplete();
        return ends;
      },
    };
    await expect(
      untilDone(
        () => topicOffsets(admin, 'replies'),
        () => undefined,
      ),
    ).resolves.toEqual(ends);
    expect(calls).toBe(2);
  });

  it('leave any other failure as it was', async () => {
    const invalid = new Error('Invalid topic');
    const admin = {
      fetchTopicOffsets: async () => {
        throw invalid;
      },
    };
    await expect(topicOffsets(admin, 'replies')).rejects.toBe(invalid);
    expect(isRetriable(invalid)).toBe(false);
  });
});
