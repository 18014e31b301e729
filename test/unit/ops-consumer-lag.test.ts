import { consumerGroupsOf } from '../../src/shared/kafka/consumer-groups';
import { topicLag } from '../../src/shared/kafka/consumer-lag';
import { loadTopicSpecs, topicNames } from '../../src/shared/kafka/topics';

describe('topicLag', () => {
  it('sums high watermark minus committed offset over partitions', () => {
    expect(
      topicLag([
        { partition: 0, committed: 5, low: 0, high: 9 },
        { partition: 1, committed: 3, low: 0, high: 3 },
      ]),
    ).toBe(4);
  });

  it('counts an uncommitted partition from its low watermark (groups start from the beginning)', () => {
    expect(topicLag([{ partition: 0, committed: -1, low: 2, high: 7 }])).toBe(5);
  });

  it('counts from the low watermark when retention deleted messages the group never read', () => {
    expect(topicLag([{ partition: 0, committed: 3, low: 10, high: 12 }])).toBe(2);
  });

  it('never reports a negative lag while a watermark read races a commit', () => {
    expect(topicLag([{ partition: 0, committed: 8, low: 0, high: 7 }])).toBe(0);
  });
});

describe('consumerGroupsOf', () => {
  const topics = topicNames(loadTopicSpecs('p.'));

  it('names the committing groups of each role, with the topic prefix', () => {
    expect(consumerGroupsOf(['ingress', 'processor', 'dispatcher'], 'p.', topics)).toEqual([
      { group: 'p.processor-intake', topics: ['p.leads.intake.commands.v2'] },
      { group: 'p.processor-crm', topics: ['p.crm.agent-actions', 'p.crm.deposits'] },
      { group: 'p.processor-reports', topics: ['p.leads.events', 'p.leads.intake.refusals'] },
      { group: 'p.processor-report-cells', topics: ['p.reports.deltas'] },
      {
        group: 'p.dispatcher',
        topics: [
          'p.leads.events',
          'p.callbacks.commands',
          'p.callbacks.retry.1',
          'p.callbacks.retry.2',
          'p.callbacks.retry.3',
          'p.callbacks.retry.4',
        ],
      },
      { group: 'p.dispatcher-endpoints', topics: ['p.callbacks.endpoints'] },
    ]);
  });

  it('has none for the ingress alone: its reply consumer commits nothing', () => {
    expect(consumerGroupsOf(['ingress'], '', topics)).toEqual([]);
  });
});
