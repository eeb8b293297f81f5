/**
 * A consumer's position that its partition no longer holds: the offset it would read next is below the log's
 * start or beyond its end. On a topic kept forever that means the topic was deleted
 * and created again (or its files were lost): the records at the new offsets are not the ones the position
 * counted, so resetting (Kafka's auto.offset.reset) would skip or re-apply records silently. A consumer that
 * must not do that stops the partition with DB_TOPIC_RECREATED instead.
 */
import { DeltabrokerError, isDeltabrokerError } from '../errors';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Offset, TopicOffsets, WriteLog } from './port';

export interface LostPosition {
  readonly topic: string;
  readonly partition: number;
  /** The offset the consumer would read next (its committed offset or its checkpoint). */
  readonly position: Offset;
  /** The partition's offsets when it was found (the log start is unknown to a check made on a batch). */
  readonly logStart?: Offset;
  readonly highWatermark: Offset;
}

export function topicRecreated(lost: LostPosition, consumer: string): DeltabrokerError {
  const where = `the log holds [${lost.logStart ?? '?'}, ${lost.highWatermark})`;
  return new DeltabrokerError(
    'DB_TOPIC_RECREATED',
    `${consumer} stopped ${lost.topic}/${lost.partition}: its position is ${lost.position} but ${where}; the topic was deleted and created again or lost its files`,
    { stage: 'consume', consumer, ...lost },
  );
}

/** A handler that throws this stops its partition: no retry, nothing committed (see SubscribeOptions). */
export const isTopicRecreated = (e: unknown): e is DeltabrokerError => isDeltabrokerError(e) && e.code === 'DB_TOPIC_RECREATED';

/**
 * Throws DB_TOPIC_RECREATED when a consumer's own stored position (the next offset it would apply) lies beyond
 * the end of the partition a batch came from: a redelivery never does that, a recreated topic does.
 */
export function assertPositionHeld(consumer: string, batch: { topic: string; partition: number; highWatermark: Offset }, position: bigint): void {
  if (position <= BigInt(batch.highWatermark)) return;
  throw topicRecreated({ topic: batch.topic, partition: batch.partition, position: position.toString(), highWatermark: batch.highWatermark }, consumer);
}

/** The lost position a DB_TOPIC_RECREATED error describes. */
export function lostPositionOf(e: DeltabrokerError): LostPosition {
  const d = e.details as Partial<LostPosition>;
  return {
    topic: String(d.topic),
    partition: Number(d.partition),
    position: String(d.position),
    ...(d.logStart !== undefined && { logStart: d.logStart }),
    highWatermark: String(d.highWatermark),
  };
}

/**
 * How long a position beyond a partition's end must stay there to count as lost on a Kafka cluster: a follower fetches
 * every few hundred milliseconds, and ten seconds covers a loaded cluster's leader change.
 */
export const DEFAULT_END_SETTLE_MS = 10_000;

/**
 * The partition's offsets when `position` lies beyond its end and stays there for the log's `endSettleMs`;
 * undefined as soon as a read finds it within. A recreated topic stays short of the position; a high watermark
 * that trails after a leader change catches up within a few follower fetches, and must not stop a partition.
 */
export async function settledBeyondEnd(
  log: Pick<WriteLog, 'topicOffsets' | 'endSettleMs'>,
  topic: string,
  partition: number,
  position: bigint,
): Promise<TopicOffsets | undefined> {
  const deadline = Date.now() + log.endSettleMs;
  for (;;) {
    const offsets = (await log.topicOffsets(topic)).find((p) => p.partition === partition);
    if (offsets === undefined || position <= BigInt(offsets.high)) return undefined;
    if (Date.now() >= deadline) return offsets;
    await sleep(Math.min(500, Math.max(1, deadline - Date.now())));
  }
}
