/**
 * Replay: read one topic from a start point (earliest, offsets, or a timestamp) up to the end offsets it
 * had when the replay began, then stop. It uses a throwaway consumer group, commits nothing, and skips
 * undecodable records (reporting them to `onRejected`) without publishing them again.
 */
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import type { RenewableAdmin } from './renewable-admin';
import type { Logger } from '../../logger';
import type { PartitionOffset, ReplayOptions, ReplayResult } from '../port';
import { decodeRawRecords, type ValueCodec } from '../codec';
import { toRawRecords } from './raw-records';

export interface ReplayDeps {
  readonly kafka: Kafka;
  readonly admin: RenewableAdmin;
  readonly codec: ValueCodec;
  readonly logger: Logger;
  readonly fetchMaxWaitMs: number;
  /** The temporary group's name starts with this. */
  readonly groupPrefix: string;
}

export async function replay<T>(deps: ReplayDeps, o: ReplayOptions<T>): Promise<ReplayResult> {
  const offsets = await deps.admin.topicOffsets(o.topic);
  const endOffsets: PartitionOffset[] = offsets.map((p) => ({ partition: p.partition, offset: p.high }));
  const starts = await startOffsets(deps.admin, o, offsets);

  // Per partition: the next offset still to be read, and the end (exclusive).
  const remaining = new Map<number, { next: bigint; end: bigint }>();
  for (const p of offsets) {
    const start = starts.get(p.partition) ?? BigInt(p.low);
    const end = BigInt(p.high);
    if (start < end) remaining.set(p.partition, { next: start, end });
  }
  let records = 0;
  let rejected = 0;
  if (remaining.size === 0) return { records, rejected, endOffsets };

  const groupId = `${deps.groupPrefix}-${o.topic}-${randomUUID()}`;
  const consumer = deps.kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: deps.fetchMaxWaitMs });
  let finish: (e?: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => (finish = (e?: Error) => (e === undefined ? resolve() : reject(e))));
  done.catch(() => undefined); // observed below; this only keeps an early failure from counting as unhandled
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) finish(payload.error);
  });

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, pause }) => {
        const left = remaining.get(batch.partition);
        if (!isRunning()) return;
        if (!left) {
          // Read to its end already (or nothing to read): nothing of it is resolved, so kafkajs would fetch this
          // batch again at once, for as long as another partition is still being read.
          pause();
          return;
        }
        if (batch.messages.length > 0 && BigInt(batch.lastOffset()) < left.next) {
          // Wholly before the replay's position: a consumer kafkajs restarted after a crash (a coordinator moving)
          // lost the seeks below and reads this group, which commits nothing, from the start. Without this seek it
          // would fetch the same batch for ever, since nothing in it is resolved.
          consumer.seek({ topic: o.topic, partition: batch.partition, offset: left.next.toString() });
          return;
        }
        const inRange = batch.messages.filter((m) => {
          const offset = BigInt(m.offset);
          return offset >= left.next && offset < left.end;
        });
        try {
          const decoded = await decodeRawRecords(deps.codec, batch.topic, batch.partition, toRawRecords(inRange), o.readerSchema);
          for (const r of decoded.rejections) await o.onRejected?.(r);
          if (decoded.records.length > 0) {
            await o.handleBatch({
              topic: batch.topic,
              partition: batch.partition,
              records: decoded.records,
              rejected: decoded.rejections.length,
              highWatermark: batch.highWatermark,
            });
          }
          records += decoded.records.length;
          rejected += decoded.rejections.length;
        } catch (e) {
          finish(e as Error); // a replay that fails stops; the caller decides whether to start again
          return;
        }
        const last = inRange.at(-1);
        if (last) {
          left.next = BigInt(last.offset) + 1n;
          resolveOffset(last.offset);
        }
        if (left.next >= left.end || BigInt(batch.lastOffset()) + 1n >= left.end) {
          remaining.delete(batch.partition);
          pause();
        }
        await heartbeat();
        if (remaining.size === 0) finish();
      },
    });
    try {
      for (const [partition, { next }] of remaining) consumer.seek({ topic: o.topic, partition, offset: next.toString() });
    } catch (e) {
      // kafkajs crashed the consumer in its first join and restarts it: each partition's first batch seeks instead.
      deps.logger.warn({ err: e, groupId }, 'replay consumer restarting; its partitions seek at their first batch');
    }
    await done;
  } finally {
    await consumer.disconnect().catch((e: unknown) => deps.logger.warn({ err: e, groupId }, 'replay consumer did not disconnect cleanly'));
    // The group committed nothing, but a broker lists it until it is deleted.
    await deps.admin
      .use((admin) => admin.deleteGroups([groupId]))
      .catch((e: unknown) => deps.logger.warn({ err: e, groupId }, 'replay could not delete its temporary consumer group'));
  }
  return { records, rejected, endOffsets };
}

async function startOffsets<T>(
  admin: RenewableAdmin,
  o: ReplayOptions<T>,
  offsets: readonly { partition: number; low: string; high: string }[],
): Promise<Map<number, bigint>> {
  const from = o.from ?? { kind: 'earliest' };
  const lowOf = new Map(offsets.map((p) => [p.partition, BigInt(p.low)]));
  const highOf = new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));
  const clamp = (partition: number, offset: bigint): bigint => {
    const low = lowOf.get(partition) ?? 0n;
    const high = highOf.get(partition) ?? offset;
    return offset < low ? low : offset > high ? high : offset;
  };
  switch (from.kind) {
    case 'earliest':
      return new Map(lowOf);
    case 'offsets':
      return new Map([...lowOf, ...from.offsets.map((p): [number, bigint] => [p.partition, clamp(p.partition, BigInt(p.offset))])]);
    case 'timestamp': {
      const found = await admin.use((a) => a.fetchTopicOffsetsByTimestamp(o.topic, from.timestamp));
      // -1: no record at or after the timestamp, so nothing to read in that partition.
      return new Map(
        found.map((p): [number, bigint] => [p.partition, p.offset === '-1' ? (highOf.get(p.partition) ?? 0n) : clamp(p.partition, BigInt(p.offset))]),
      );
    }
  }
}
