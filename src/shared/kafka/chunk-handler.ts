import type { Logger } from '../logger';
import { isRetriable } from '../retriable';
import type { BatchContext, Decoded, Recording } from './batch-types';
import { PartitionMerger } from './partition-merger';

const POISON_TRIES = 2;

export type HandleChunk<T> = (records: Decoded<T>[], ctx: BatchContext) => Promise<void | Recording>;

interface ChunkHandlerOptions<T> {
  group: string;
  handle: HandleChunk<T>;
  poison?(record: Decoded<T>, err: unknown, ctx: BatchContext): Promise<void>;
}

// A chunk handled as a whole. Passing failures (a server away) are thrown to kafkajs, which retries
// the batch; a chunk failing otherwise is handled again record by record, and a record that fails
// alone POISON_TRIES times goes to `poison` (without it, it throws). Returns the chunk's recording
// (undefined: all recorded once this returns).
export function chunkHandler<T>(opts: ChunkHandlerOptions<T>, logger: Logger): HandleChunk<T> {
  // One record, up to POISON_TRIES times, then to `poison`; `pending` is its recording (none:
  // recorded already, or poisoned).
  const handleAlone = async (record: Decoded<T>, ctx: BatchContext): Promise<{ pending?: Promise<unknown> }> => {
    for (let tries = 1; ; tries++) {
      try {
        const recording = await opts.handle([record], ctx);
        return recording?.[0] ? { pending: recording[0] } : {};
      } catch (err) {
        if (isRetriable(err)) throw err;
        if (tries < POISON_TRIES) continue;
        logger.error(
          { group: opts.group, topic: ctx.topic, partition: ctx.partition, offset: record.message.offset, err },
          'poison record',
        );
        await opts.poison?.(record, err, ctx);
        return {};
      }
    }
  };

  const oneByOne = async (records: Decoded<T>[], ctx: BatchContext): Promise<Recording> => {
    const recording: (Promise<unknown> | undefined)[] = [];
    for (const record of records) recording.push((await handleAlone(record, ctx)).pending);
    return recording;
  };
  return (records, ctx) =>
    inParts(
      opts,
      logger,
      ctx,
      () => opts.handle(records, ctx),
      () => oneByOne(records, ctx),
      'a chunk failed; handling its records one by one',
    );
}

// Chunks of different partitions arriving within `windowMs` handled as one (partition-merger.ts),
// with the first part's context. A merged chunk that fails otherwise than passingly is handled
// again part by part (then record by record).
export function mergedChunkHandler<T>(
  opts: ChunkHandlerOptions<T>,
  windowMs: number,
  chunkSize: number,
  logger: Logger,
): HandleChunk<T> {
  const alone = chunkHandler(opts, logger);
  const merger = new PartitionMerger<Decoded<T>, BatchContext>(windowMs, chunkSize, async (records, first) => {
    await opts.handle(records, first);
  });
  return (records, ctx) =>
    inParts(
      opts,
      logger,
      ctx,
      () => merger.submit(records, ctx),
      () => alone(records, ctx),
      'a merged chunk failed; handling its parts alone',
    );
}

// `whole`, or, when it fails otherwise than passingly and a poison hook can take what fails alone, `parts`.
async function inParts<T>(
  opts: ChunkHandlerOptions<T>,
  logger: Logger,
  ctx: BatchContext,
  whole: () => Promise<void | Recording>,
  parts: () => Promise<void | Recording>,
  why: string,
): Promise<void | Recording> {
  try {
    return await whole();
  } catch (err) {
    if (isRetriable(err) || !opts.poison) throw err;
    logger.warn({ group: opts.group, topic: ctx.topic, partition: ctx.partition, err }, why);
  }
  return parts();
}
