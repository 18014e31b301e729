import { loadSetupConfig } from '../../src/shared/config';
import { consumerSettings } from '../../src/shared/kafka/consumer-settings';

// Every consumer's settings come from KAFKA_SESSION_TIMEOUT_MS, KAFKA_FETCH_MAX_WAIT_MS and
// TOPIC_PREFIX, derived once.
describe('consumerSettings', () => {
  it('heartbeats ten times a session and keeps the rebalance timeout at 60 s', () => {
    const { kafka } = loadSetupConfig({ TOPIC_PREFIX: 't1-' });
    expect(consumerSettings(kafka)).toEqual({
      groupPrefix: 't1-',
      sessionTimeoutMs: 30_000,
      heartbeatIntervalMs: 3_000,
      rebalanceTimeoutMs: 60_000,
      fetchMaxWaitMs: 5_000,
    });
  });

  it('never lets the rebalance timeout fall below the session', () => {
    const { kafka } = loadSetupConfig({ KAFKA_SESSION_TIMEOUT_MS: '90000' });
    expect(consumerSettings(kafka)).toMatchObject({ heartbeatIntervalMs: 9_000, rebalanceTimeoutMs: 90_000 });
  });

  it('keeps a fetch within a third of the session, so heartbeats between fetches keep it', () => {
    expect(() => loadSetupConfig({ KAFKA_SESSION_TIMEOUT_MS: '9000', KAFKA_FETCH_MAX_WAIT_MS: '3001' })).toThrow(
      /KAFKA_FETCH_MAX_WAIT_MS/,
    );
    expect(consumerSettings(loadSetupConfig({ KAFKA_FETCH_MAX_WAIT_MS: '1000' }).kafka).fetchMaxWaitMs).toBe(1000);
  });
});
