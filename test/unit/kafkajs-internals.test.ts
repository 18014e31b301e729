import { assertPatchedKafkajs, PATCHED_KAFKAJS } from '../../src/shared/kafka/kafkajs-internals';

describe('the kafkajs the patches were written against', () => {
  it('is the one installed, and any other refuses to load', () => {
    expect((require('kafkajs/package.json') as { version: string }).version).toBe(PATCHED_KAFKAJS);
    expect(() => assertPatchedKafkajs(PATCHED_KAFKAJS)).not.toThrow();
    expect(() => assertPatchedKafkajs('2.2.5')).toThrow(/patches the internals of kafkajs 2\.2\.4/);
  });
});
