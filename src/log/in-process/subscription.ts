/**
 * A consumer-group subscription on the broker's own partition logs, with the kafkajs adapter's guarantees:
 * per partition one batch at a time in offset order, at most `partitionsConsumedConcurrently` partitions
 * handled at once, the offset committed (in the broker's OffsetStore, where every Kafka tool sees it) only
 * after the handler resolved, the batch delivered again after a throw, undecodable records published as
 * rejections and skipped. An idle partition parks on its high-watermark listener; nothing polls.
 *
 * A commit does not wait for the offsets journal's fsync: the line is written at once (a process crash keeps
 * it), and only a machine crash before the next fsync can bring back batches already handled, which every
 * handler in the service takes idempotently.
 */
import { setMaxListeners } from 'node:events';
import type { EmbeddedKafkaParts } from '../../embedded/kafka';
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import type { Logger } from '../../logger';
import type { ValueCodec } from '../codec';
import { DeltabrokerError } from '../../errors';
import type { BatchHandled, Offset, StartPosition, SubscribeOptions, Subscription } from '../port';
import type { Rejection } from '../schema-types';
import { isTopicRecreated, type LostPosition } from '../lost-position';
import { GroupJoinError, GroupMember, type Generation } from './group/member';
import { GroupPositions } from './group-positions';
import { unknownTopic } from './log-errors';
import type { DecodedBatches } from './decoded-batches';
import { OrderedCommits } from './ordered-commits';
import { COMMITTING_END, DURABLE_END, OffsetOutOfRange, readPartition, waitForData, type ReadableEnd } from './partition-reader';
import { Slots } from './slots';

export interface SubscriptionDeps {
  readonly broker: EmbeddedKafkaParts;
  readonly codec: ValueCodec;
  /** Batches decoded by other groups' readers in this process (decode once, fan out). */
  readonly decoded?: DecodedBatches;
  readonly logger: Logger;
  readonly reject: (rejections: readonly Rejection[]) => Promise<void>;
  readonly clientId: string;
  /** How often the member tells the coordinator it is alive, and learns of a rebalance (default 1000 ms). */
  readonly heartbeatIntervalMs?: number;
}

/** A failing batch is retried after 300 ms, doubling up to 30 s (kafkajs's retry curve, without its cap on attempts). */
const retryDelay = (failures: number): number => Math.min(30_000, 300 * 2 ** (failures - 1));

export function subscribe<T>(deps: SubscriptionDeps, o: SubscribeOptions<T>): Subscription {
  if (!o.groupId) throw new TypeError('subscribe: groupId is required');
  if (o.topics.length === 0) throw new TypeError('subscribe: at least one topic is required');
  for (const topic of o.topics) if (!deps.broker.logs.topic(topic)) throw unknownTopic(topic);
  const concurrency = o.partitionsConsumedConcurrently ?? 1;
  if (o.maxBytesPerPartition !== undefined && !(Number.isInteger(o.maxBytesPerPartition) && o.maxBytesPerPartition > 0))
    throw new TypeError('subscribe: maxBytesPerPartition must be a positive integer');
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError('subscribe: partitionsConsumedConcurrently must be a positive integer');
  return new GroupConsumer(deps, o, concurrency);
}

class GroupConsumer<T> implements Subscription {
  readonly groupId: string;
  readonly joined: Promise<void>;
  private markJoined: () => void = () => undefined;
  private failJoin: (e: unknown) => void = () => undefined;
  private readonly stopping = new AbortController();
  private readonly member: GroupMember;
  private readonly slots: Slots;
  private readonly log: Logger;
  private readonly running: Promise<void>;
  private readonly positions: GroupPositions;
  private stopped: Promise<void> | undefined;
  /** Ends this subscription's count among the readers that share decoded batches. */
  private readonly leaveSharing: () => void;
  /** Where this subscription's readable records end in a partition (`readWhileCommitting`). */
  private readonly readableEnd: ReadableEnd;
  /** The generation being consumed: its partitions, and the stopped ones `resumeAt` may consume again. */
  private current: Consuming | undefined;

  constructor(
    private readonly deps: SubscriptionDeps,
    private readonly o: SubscribeOptions<T>,
    concurrency: number,
  ) {
    // One listener per partition waiting for data, plus the rebalance watch: more than Node's default ten.
    setMaxListeners(0, this.stopping.signal);
    this.groupId = o.groupId;
    this.readableEnd = o.readWhileCommitting === true ? COMMITTING_END : DURABLE_END;
    this.joined = new Promise<void>((resolve, reject) => {
      this.markJoined = resolve;
      this.failJoin = reject;
    });
    this.joined.catch(() => undefined); // a caller who never awaits it is told through the log instead
    this.log = deps.logger.child({ groupId: o.groupId });
    this.slots = new Slots(concurrency);
    this.leaveSharing = deps.decoded?.addReader(o.topics, o.readerSchema) ?? (() => undefined);
    this.member = new GroupMember(deps.broker.groups, (topic) => deps.broker.logs.topic(topic)?.partitions.length ?? 0, {
      groupId: o.groupId,
      topics: o.topics,
      clientId: deps.clientId,
    });
    this.positions = new GroupPositions(deps.broker, o.groupId, this.member, { start: o.start ?? 'earliest', commits: o.commitPositions !== false }, this.log);
    const brokerStopping = deps.broker.stopping;
    if (brokerStopping.aborted) this.stopping.abort();
    else brokerStopping.addEventListener('abort', () => this.stopping.abort(), { once: true, signal: this.stopping.signal });
    this.running = this.run().catch((err: unknown) => {
      this.log.error({ err }, 'the consumer stopped after an unexpected failure');
      this.failJoin(err);
    });
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping.abort();
      this.leaveSharing();
      await this.running;
      await this.positions.settled();
    })();
    return this.stopped;
  }

  async resumeAt(topic: string, partition: number, offset: Offset): Promise<void> {
    const current = this.current;
    const id = `${topic}\u0000${partition}`;
    const refuse = (why: string): never => {
      throw new DeltabrokerError('DB_CONFLICT', `${this.groupId} cannot resume ${topic}/${partition}: ${why}`, {
        field: 'partition',
        rule: 'stopped-here',
        stage: 'consume',
      });
    };
    if (!current?.generation.assignment.get(topic)?.includes(partition)) refuse('this member does not hold it now');
    const consuming = current as Consuming;
    if (!consuming.halted.has(id)) return; // consumed now, from a position the log holds
    if (!(await this.positions.commitSet([{ topic, partition, offset: Number(offset) }]))) refuse('the group is rebalancing; try again');
    consuming.halted.delete(id);
    consuming.resumed.add(this.consumePartition(topic, partition, consuming, Number(offset)));
  }

  private async run(): Promise<void> {
    const stop = this.stopping.signal;
    let failures = 0;
    let everJoined = false;
    try {
      while (!stop.aborted) {
        let generation: Generation | null;
        try {
          generation = await this.member.join(stop);
        } catch (e) {
          if (stop.aborted) break;
          if (!everJoined || !(e instanceof GroupJoinError)) {
            this.log.error({ err: e }, 'the consumer could not join its group; it stops');
            this.failJoin(e);
            break;
          }
          failures++;
          this.log.error({ err: e, attempt: failures }, 'rejoining the consumer group failed; trying again');
          await sleep(retryDelay(failures), stop);
          continue;
        }
        if (!generation) break;
        failures = 0;
        everJoined = true;
        this.markJoined();
        this.log.debug({ generation: generation.generationId, assignment: Object.fromEntries(generation.assignment) }, 'partitions assigned');
        await this.consume(generation);
      }
    } finally {
      this.member.leave();
    }
  }

  /** Consumes the generation's partitions until a rebalance or stop() revokes them. */
  private async consume(generation: Generation): Promise<void> {
    const revoked = new AbortController();
    // Each assigned partition waiting for data listens to it: a group of more than ten partitions is no leak.
    setMaxListeners(0, revoked.signal);
    const stop = this.stopping.signal;
    const revoke = (): void => revoked.abort();
    if (stop.aborted) revoke();
    stop.addEventListener('abort', revoke, { once: true });
    const heartbeat = setInterval(() => {
      if (this.member.heartbeat() !== ErrorCode.NONE) revoked.abort();
    }, this.deps.heartbeatIntervalMs ?? 1000);
    const consuming: Consuming = { generation, revoked, halted: new Set(), resumed: new Set() };
    this.current = consuming;
    try {
      const partitions = [...generation.assignment].flatMap(([topic, list]) => list.map((partition) => ({ topic, partition })));
      const starts = await this.prepareAssigned(partitions, revoked.signal);
      const startOf = (p: { topic: string; partition: number }): number | undefined => {
        const start = starts.find((s) => s.topic === p.topic && s.partition === p.partition);
        return start === undefined ? undefined : Number(start.offset);
      };
      await Promise.all(partitions.map((p) => this.consumePartition(p.topic, p.partition, consuming, startOf(p))));
      await sleep(Number.POSITIVE_INFINITY, revoked.signal); // nothing (left) to read: wait for the next rebalance
    } finally {
      if (this.current === consuming) this.current = undefined;
      // A partition resumed in this generation gives its batch in hand back before the next generation reads it.
      await Promise.all(consuming.resumed);
      clearInterval(heartbeat);
      stop.removeEventListener('abort', revoke);
    }
  }

  /**
   * Runs `onAssigned` until it succeeds, or the partitions are revoked meanwhile, and commits the start positions
   * it answered for partitions of this assignment (the group's position moves there, as Kafka's seek commits it).
   */
  private async prepareAssigned(partitions: { topic: string; partition: number }[], revoked: AbortSignal): Promise<readonly StartPosition[]> {
    const prepare = this.o.onAssigned;
    if (!prepare) return [];
    for (let failures = 1; !revoked.aborted; failures++) {
      try {
        const starts = ((await prepare(partitions)) ?? []).filter((s) => partitions.some((p) => p.topic === s.topic && p.partition === s.partition));
        if (starts.length > 0) await this.positions.commitSet(starts.map((s) => ({ topic: s.topic, partition: s.partition, offset: Number(s.offset) })));
        return starts;
      } catch (err) {
        this.log.error({ err, attempt: failures }, 'preparing the assigned partitions failed; they wait, and it runs again');
        await sleep(retryDelay(failures), revoked);
      }
    }
    return [];
  }

  /** Consumes the partition from `from` (its group's position when absent) until it is revoked or stopped. */
  private async consumePartition(topic: string, partition: number, consuming: Consuming, from?: number): Promise<void> {
    const commits = new OrderedCommits();
    try {
      const halted = await this.readPartitionLoop(topic, partition, consuming.revoked, commits, from);
      if (halted) consuming.halted.add(`${topic}\u0000${partition}`);
    } finally {
      // Batches still settling commit (or are refused) before the partition is given up.
      await commits.drained();
    }
  }

  /** Reads the partition until it is revoked (answers false) or stopped (answers true). */
  private async readPartitionLoop(topic: string, partition: number, revoked: AbortController, commits: OrderedCommits, from?: number): Promise<boolean> {
    const signal = revoked.signal;
    let offset = from ?? this.positions.startOffset(topic, partition);
    let failures = 0;
    while (!signal.aborted) {
      const log = this.deps.broker.logs.partition(topic, partition);
      if (!log) {
        // The topic was deleted: look again each second (a rare state, not worth a listener), and compare the
        // position with the partition once it exists again.
        await sleep(1000, signal);
        continue;
      }
      const end = this.readableEnd.of(log);
      if (offset < log.logStartOffset || offset > end) {
        const lost = { topic, partition, position: String(offset), logStart: String(log.logStartOffset), highWatermark: String(log.highWatermark) };
        if (this.o.onLostPosition) {
          this.halt(lost);
          return true;
        }
        const reset = this.positions.resetOffset(log);
        this.log.warn({ topic, partition, from: offset, to: reset }, 'offset out of range; consuming from the reset offset');
        offset = reset;
      }
      if (offset === end) {
        await waitForData(log, offset, signal, this.readableEnd);
        continue;
      }
      if (!(await this.slots.acquire(signal))) return false;
      let outcome: Outcome;
      try {
        outcome = await this.handleOnce(log, offset, revoked, commits);
      } finally {
        this.slots.release();
      }
      if (outcome.kind === 'next') {
        offset = outcome.offset;
        failures = 0;
      } else if (outcome.kind === 'idle') {
        await waitForData(log, this.readableEnd.of(log), signal, this.readableEnd); // nothing readable yet
      } else if (outcome.kind === 'halted') {
        this.log.error({ err: outcome.error, topic, partition, offset }, 'the handler stopped this partition; it is not consumed until it is resumed');
        return true;
      } else if (outcome.kind === 'failed') {
        failures++;
        this.log.error({ err: outcome.error, topic, partition, offset, attempt: failures }, 'handling a batch failed; it will be delivered again');
        await sleep(retryDelay(failures), signal);
      }
    }
    return false;
  }

  /** Reads, hands over and commits one batch (or queues its commit behind the work it is still settling). */
  private async handleOnce(log: PartitionLog, offset: number, revoked: AbortController, commits: OrderedCommits): Promise<Outcome> {
    try {
      const batch = await readPartition(
        log,
        this.deps.codec,
        offset,
        this.o.readerSchema,
        this.readableEnd.of(log),
        this.deps.decoded,
        this.o.maxBytesPerPartition,
      );
      if (revoked.signal.aborted) return { kind: 'again' };
      if (!batch) return { kind: 'idle' };
      if (batch.rejections.length > 0) {
        await this.deps.reject(batch.rejections);
        this.log.warn(
          {
            topic: log.topic,
            partition: log.partition,
            offsets: batch.rejections.map((r) => r.source?.offset),
            reasons: batch.rejections.map((r) => r.reason),
          },
          'undecodable records sent to the rejections topic',
        );
      }
      let handled: BatchHandled = undefined;
      if (batch.records.length > 0) {
        handled = await this.o.handleBatch({
          topic: log.topic,
          partition: log.partition,
          records: batch.records,
          rejected: batch.rejections.length,
          highWatermark: String(batch.highWatermark),
        });
      }
      if (handled && 'seek' in handled) return await this.seek(log, Number(handled.seek), revoked, commits);
      const settled = handled ? handled.settled : undefined;
      if (settled || commits.busy) {
        commits.queue(
          settled,
          () => this.positions.commitHandled(log, batch.next),
          (error) => {
            if (error !== undefined)
              this.log.error(
                { err: error, topic: log.topic, partition: log.partition, offset },
                'finishing a batch failed; it and the batches after it will be delivered again',
              );
            revoked.abort();
          },
        );
        return { kind: 'next', offset: batch.next };
      }
      if (!this.positions.commitHandled(log, batch.next)) {
        revoked.abort();
        return { kind: 'again' };
      }
      return { kind: 'next', offset: batch.next };
    } catch (e) {
      // Out of range: retention or a truncated tail moved the log under us; the loop resets the offset.
      if (e instanceof OffsetOutOfRange) return { kind: 'again' };
      return isTopicRecreated(e) ? { kind: 'halted', error: e } : { kind: 'failed', error: e };
    }
  }

  /** A handler's seek: the batches settling before it commit first, then the group's position moves to `offset`. */
  private async seek(log: PartitionLog, offset: number, revoked: AbortController, commits: OrderedCommits): Promise<Outcome> {
    await commits.drained();
    if (!this.positions.commitHandled(log, offset)) {
      revoked.abort();
      return { kind: 'again' };
    }
    return { kind: 'next', offset };
  }

  /** Stops consuming a partition whose position the log no longer holds, and says so (auto.offset.reset=none). */
  private halt(lost: LostPosition): void {
    this.log.error({ ...lost }, 'the partition no longer holds this consumer position; the partition is stopped');
    this.o.onLostPosition?.(lost);
  }
}

/** A generation this member consumes. */
interface Consuming {
  readonly generation: Generation;
  readonly revoked: AbortController;
  /** Partitions stopped in this generation (`topic\u0000partition`). */
  readonly halted: Set<string>;
  /** Partitions `resumeAt` consumes again, until the generation ends. */
  readonly resumed: Set<Promise<void>>;
}

type Outcome =
  | { readonly kind: 'next'; readonly offset: number }
  | { readonly kind: 'again' }
  | { readonly kind: 'idle' }
  | { readonly kind: 'halted'; readonly error: unknown }
  | { readonly kind: 'failed'; readonly error: unknown };

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener('abort', done, { once: true });
  });
}
