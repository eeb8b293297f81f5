/**
 * kafkajs 2.2 answers a fetch's OFFSET_OUT_OF_RANGE by committing its default offset for the partition (-2, the
 * earliest, for our subscriptions): Kafka's auto.offset.reset, applied on the word of whichever broker it fetched
 * from. Kafka serves consumer fetches of version 11 and later from followers too, so a consumer whose metadata still
 * names a broker that restarted and is catching up as the leader hears "out of range" for a position the real leader
 * holds, and the group's position is thrown away: the partition is then read again from its start, or, for a
 * subscription that stops lost positions, stopped as if its topic had been recreated. The scale-out suite met this
 * when the Kafka broker it killed came back.
 *
 * The Java consumer validates its position with the partition's leader before resetting (KIP-320). This module
 * gives kafkajs's consumer group the same rule: on out of range it asks the leader (ListOffsets, which only a leader
 * answers) for the partition's offsets; a position the leader holds is kept and the fetch is tried again on fresh
 * metadata; a position beyond the leader's end is kept while that end may still be a new leader's trailing high
 * watermark; only a position the leader's log does not hold after that is reset, as kafkajs would have done.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_END_SETTLE_MS } from '../lost-position';

/** What the leader's log holds of a partition: [low, high). */
interface LeaderOffsets {
  readonly low: bigint;
  readonly high: bigint;
}

export type OutOfRangeVerdict = 'retry' | 'wait-for-end' | 'reset';

/**
 * What to do with a position a broker called out of range, given the leader's offsets. `beyondEndSinceMs` is when
 * the position was first seen beyond the leader's end (undefined: not before).
 */
export function outOfRangeVerdict(position: bigint, leader: LeaderOffsets, beyondEndSinceMs: number | undefined, nowMs: number): OutOfRangeVerdict {
  if (position >= leader.low && position <= leader.high) return 'retry';
  if (position > leader.high && (beyondEndSinceMs === undefined || nowMs - beyondEndSinceMs < DEFAULT_END_SETTLE_MS)) return 'wait-for-end';
  return 'reset';
}

/** Pause before the fetch is tried again, so a broker that keeps refusing is not asked in a tight loop. */
const RETRY_PAUSE_MS = 250;
/** Ends every line that says an out-of-range position was kept (a suite's diagnosis counts them). */
export const POSITION_KEPT = 'keeping the position';

/** The parts of kafkajs's (untyped, internal) ConsumerGroup this recovery uses. */
interface ConsumerGroupInternals {
  groupId: string;
  logger: { warn(message: string, extra: object): void };
  cluster: {
    refreshMetadata(): Promise<void>;
    fetchTopicsOffset(
      topics: { topic: string; partitions: { partition: number }[]; fromBeginning: boolean }[],
    ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
  };
  offsetManager: { nextOffset(topic: string, partition: number): { toString(): string } };
}
interface OutOfRangeError {
  topic: string;
  partition: number;
}
type Recover = (this: ConsumerGroupInternals, e: OutOfRangeError) => Promise<void>;

const beyondEndSince = new WeakMap<ConsumerGroupInternals, Map<string, number>>();

async function leaderOffsets(group: ConsumerGroupInternals, topic: string, partition: number): Promise<LeaderOffsets> {
  const offsetAt = async (fromBeginning: boolean): Promise<bigint> => {
    const [answer] = await group.cluster.fetchTopicsOffset([{ topic, partitions: [{ partition }], fromBeginning }]);
    const offset = answer?.partitions.find((p) => p.partition === partition)?.offset;
    if (offset === undefined) throw new Error(`no offsets for ${topic}/${partition}`);
    return BigInt(offset);
  };
  return { low: await offsetAt(true), high: await offsetAt(false) };
}

function validatingRecovery(original: Recover): Recover {
  return async function recoverFromOffsetOutOfRange(this: ConsumerGroupInternals, e: OutOfRangeError): Promise<void> {
    const key = `${e.topic}\u0000${e.partition}`;
    const seen = beyondEndSince.get(this) ?? new Map<string, number>();
    beyondEndSince.set(this, seen);
    const position = BigInt(this.offsetManager.nextOffset(e.topic, e.partition).toString());
    let leader: LeaderOffsets;
    try {
      await this.cluster.refreshMetadata();
      leader = await leaderOffsets(this, e.topic, e.partition);
    } catch (err) {
      // The leader cannot be asked now (it is moving): keep the position and fetch again.
      this.logger.warn(`Offset out of range and the leader could not be asked; ${POSITION_KEPT}`, { ...e, groupId: this.groupId, error: String(err) });
      await sleep(RETRY_PAUSE_MS);
      return;
    }
    const verdict = outOfRangeVerdict(position, leader, seen.get(key), Date.now());
    if (verdict === 'reset') {
      seen.delete(key);
      return original.call(this, e);
    }
    if (verdict === 'retry') seen.delete(key);
    else if (!seen.has(key)) seen.set(key, Date.now());
    this.logger.warn(`Offset out of range on a broker that is not the leader, or a trailing end; ${POSITION_KEPT}`, {
      ...e,
      groupId: this.groupId,
      position: position.toString(),
      leaderLow: leader.low.toString(),
      leaderHigh: leader.high.toString(),
    });
    await sleep(RETRY_PAUSE_MS);
  };
}

let installed = false;

/** Installs the recovery on kafkajs's ConsumerGroup once per process; every consumer made after uses it. */
export function validateOutOfRangeWithLeader(): void {
  if (installed) return;
  // kafkajs (2.2.4, pinned by the lock) exports no hook for this; its consumer group is a CommonJS class.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an internal module, no import path for it
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as { prototype: { recoverFromOffsetOutOfRange?: Recover } };
  const original = ConsumerGroup.prototype.recoverFromOffsetOutOfRange;
  if (typeof original !== 'function') throw new Error('kafkajs ConsumerGroup has no recoverFromOffsetOutOfRange: check the kafkajs version');
  ConsumerGroup.prototype.recoverFromOffsetOutOfRange = validatingRecovery(original);
  installed = true;
}
