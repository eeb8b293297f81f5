import path from 'node:path';
import type { Logger } from '../../../logger';
import { KeyedTurns } from '../../../system/keyed-turns';
import type { GroupCoordinator } from '../group/coordinator';
import type { OffsetCommitEntry } from '../group/offset-store';
import { encodeMarkerBatch } from '../protocol/control-batch';
import { ErrorCode } from '../protocol/errors';
import type { FsyncPolicy, LogManager } from '../storage/log-manager';
import { type PartitionAbort, TransactionLog } from './transaction-log';
import { type PendingOffset, type TxnState, isPreparing, partitionKey, splitPartitionKey } from './transaction-state';

/** Kafka's `transaction.max.timeout.ms` default: a producer asking for more is refused. */
export const MAX_TRANSACTION_TIMEOUT_MS = 15 * 60_000;
/** How often open transactions are checked for their timeout (Kafka: 10 s). */
const TIMEOUT_CHECK_MS = 1000;
const MAX_EPOCH = 32767;

export interface ProducerIdAndEpoch {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export interface TxnCoordinatorDeps {
  dir: string;
  fsync: FsyncPolicy;
  logs: LogManager;
  groups: GroupCoordinator;
  allocateProducerId: () => number;
  logger: Logger;
}

/**
 * The transaction coordinator (KIP-98, KIP-447) of this single node. Each transactional id has a producer id and
 * an epoch; InitProducerId bumps the epoch, which fences a zombie with the same id (its open transaction is
 * aborted first). Ending a transaction journals the decision, writes a marker to every partition of it, commits
 * its offsets to the groups, then journals it complete; a restart finishes decided transactions and aborts
 * undecided ones. Requests of one transactional id are handled one at a time.
 */
export class TransactionCoordinator {
  private readonly journal: TransactionLog;
  private readonly turns = new KeyedTurns();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly deps: TxnCoordinatorDeps) {
    this.journal = new TransactionLog(path.join(deps.dir, 'transactions'), deps.fsync, deps.logger, (a) => {
      const log = deps.logs.partition(a.topic, a.partition);
      return log !== undefined && a.lastOffset >= log.logStartOffset;
    });
    for (const a of this.journal.aborts) deps.logs.partition(a.topic, a.partition)?.transactions.addAborted(a);
    this.timer = setInterval(() => {
      void this.abortTimedOut();
      this.journal.syncIfBehind().catch((err: unknown) => deps.logger.error({ err }, 'fsync of the transaction journal failed'));
    }, TIMEOUT_CHECK_MS).unref();
  }

  /**
   * Finishes what a crash left, before clients connect: decided transactions complete; open ones abort, their epoch
   * bumped (their producer is gone with the old process, as a Kafka coordinator aborts a timed-out one).
   */
  async recover(): Promise<void> {
    for (const s of [...this.journal.states.values()]) {
      if (s.status === 'PrepareCommit') await this.writeMarkers(s, true);
      else if (s.status === 'PrepareAbort') await this.writeMarkers(s, false);
      else if (s.status === 'Ongoing') await this.complete({ ...s, producerEpoch: this.nextEpoch(s.producerEpoch) }, false);
    }
  }

  /** Every transactional id known, for ListTransactions/DescribeTransactions and tests. */
  states(): TxnState[] {
    return [...this.journal.states.values()];
  }

  /**
   * Whether a transactional batch of this producer may be appended to the partition: its transaction must be open
   * with the partition added and the epoch current. Otherwise the batch would open a transaction no marker ever
   * closes, holding the partition's last stable offset back for good; and a fenced producer is refused everywhere.
   */
  checkTransactionalWrite(producerId: number, epoch: number, topic: string, partition: number): number {
    const id = this.journal.byProducerId.get(producerId);
    const s = id === undefined ? undefined : this.journal.states.get(id);
    if (!s || s.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (s.producerEpoch !== epoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (s.status !== 'Ongoing' || !s.partitions.includes(partitionKey(topic, partition))) return ErrorCode.INVALID_TXN_STATE;
    return ErrorCode.NONE;
  }

  initProducerId(id: string, timeoutMs: number): Promise<ProducerIdAndEpoch> {
    const refused = (errorCode: number): ProducerIdAndEpoch => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (timeoutMs <= 0 || timeoutMs > MAX_TRANSACTION_TIMEOUT_MS) return Promise.resolve(refused(ErrorCode.INVALID_TRANSACTION_TIMEOUT));
    return this.turns.run(id, async () => {
      let s = this.journal.states.get(id);
      if (s && isPreparing(s.status)) return refused(ErrorCode.CONCURRENT_TRANSACTIONS);
      if (s?.status === 'Ongoing') s = await this.complete({ ...s, producerEpoch: this.nextEpoch(s.producerEpoch) }, false);
      const fresh = !s || s.producerEpoch >= MAX_EPOCH;
      const next: TxnState = {
        transactionalId: id,
        producerId: fresh ? this.deps.allocateProducerId() : s!.producerId,
        producerEpoch: fresh ? 0 : s!.producerEpoch + 1,
        status: 'Empty',
        timeoutMs,
        sinceMs: Date.now(),
        partitions: [],
        offsets: {},
      };
      await this.journal.put(next);
      return { errorCode: ErrorCode.NONE, producerId: next.producerId, producerEpoch: next.producerEpoch };
    });
  }

  private nextEpoch(epoch: number): number {
    return Math.min(epoch + 1, MAX_EPOCH);
  }

  /** The state a request of this producer may act on, or the error that refuses it. */
  private current(id: string, producerId: number, epoch: number): TxnState | number {
    const s = this.journal.states.get(id);
    if (!s || s.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (s.producerEpoch !== epoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (isPreparing(s.status)) return ErrorCode.CONCURRENT_TRANSACTIONS;
    return s;
  }

  /** Adds partitions (AddPartitionsToTxn): the error per partition, all the same unless a partition is unknown. */
  addPartitions(id: string, producerId: number, epoch: number, partitions: { topic: string; partition: number }[]): Promise<number[]> {
    return this.turns.run(id, async () => {
      const s = this.current(id, producerId, epoch);
      if (typeof s === 'number') return partitions.map(() => s);
      const unknown = partitions.map((p) => !this.deps.logs.partition(p.topic, p.partition));
      if (unknown.some(Boolean)) return unknown.map((u) => (u ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.OPERATION_NOT_ATTEMPTED));
      const added = new Set([...s.partitions, ...partitions.map((p) => partitionKey(p.topic, p.partition))]);
      await this.journal.put({ ...this.begun(s), partitions: [...added] });
      return partitions.map(() => ErrorCode.NONE);
    });
  }

  /** Adds a consumer group whose offsets the transaction will commit (AddOffsetsToTxn). */
  addOffsets(id: string, producerId: number, epoch: number, groupId: string): Promise<number> {
    return this.turns.run(id, async () => {
      const s = this.current(id, producerId, epoch);
      if (typeof s === 'number') return s;
      // Not awaited to disk (nor TxnOffsetCommit's): a restart aborts every transaction not yet prepared, and the
      // PrepareCommit line, which is, carries the group and its offsets and makes the lines before it durable too.
      await this.journal.put({ ...this.begun(s), offsets: { [groupId]: [], ...s.offsets } }, 'later');
      return ErrorCode.NONE;
    });
  }

  /** Offsets of a group added to the transaction (TxnOffsetCommit): kept until it ends, committed only if it commits. */
  commitOffsets(id: string, producerId: number, epoch: number, groupId: string, offsets: PendingOffset[]): Promise<number> {
    return this.turns.run(id, async () => {
      const s = this.current(id, producerId, epoch);
      if (typeof s === 'number') return s;
      const before = s.offsets[groupId];
      if (s.status !== 'Ongoing' || !before) return ErrorCode.INVALID_TXN_STATE;
      const merged = new Map(before.map((o) => [partitionKey(o[0], o[1]), o]));
      for (const o of offsets) merged.set(partitionKey(o[0], o[1]), o);
      await this.journal.put({ ...s, offsets: { ...s.offsets, [groupId]: [...merged.values()] } }, 'later');
      return ErrorCode.NONE;
    });
  }

  /** EndTxn: commits or aborts; a retry of an end already done answers NONE, as Kafka. */
  endTxn(id: string, producerId: number, epoch: number, commit: boolean): Promise<number> {
    return this.turns.run(id, async () => {
      const s = this.current(id, producerId, epoch);
      if (typeof s === 'number') return s;
      if (s.status === (commit ? 'CompleteCommit' : 'CompleteAbort')) return ErrorCode.NONE;
      if (s.status !== 'Ongoing') return ErrorCode.INVALID_TXN_STATE;
      await this.complete(s, commit);
      return ErrorCode.NONE;
    });
  }

  private begun(s: TxnState): TxnState {
    return s.status === 'Ongoing' ? s : { ...s, status: 'Ongoing', sinceMs: Date.now(), partitions: [], offsets: {} };
  }

  /** Decides (journaled), writes the markers, commits the offsets, journals it done. */
  private async complete(s: TxnState, commit: boolean): Promise<TxnState> {
    const prepared: TxnState = { ...s, status: commit ? 'PrepareCommit' : 'PrepareAbort', sinceMs: Date.now() };
    await this.journal.put(prepared);
    return this.writeMarkers(prepared, commit);
  }

  /** The second phase, also what recovery runs again: idempotent (spans are recorded once, extra markers are harmless). */
  private async writeMarkers(s: TxnState, commit: boolean): Promise<TxnState> {
    const logs = s.partitions.flatMap((key) => {
      const { topic, partition } = splitPartitionKey(key);
      const log = this.deps.logs.partition(topic, partition);
      return log ? [log] : [];
    });
    if (!commit) {
      const aborts: PartitionAbort[] = [];
      for (const log of logs) {
        const first = log.transactions.firstOffsetOf(s.producerId);
        if (first !== undefined)
          aborts.push({ topic: log.topic, partition: log.partition, producerId: s.producerId, firstOffset: first, lastOffset: log.logEndOffset });
      }
      if (aborts.length > 0) await this.journal.putAborts(aborts);
      for (const a of aborts) this.deps.logs.partition(a.topic, a.partition)?.transactions.addAborted(a);
    }
    for (const log of logs) {
      const result = log.append([encodeMarkerBatch(s.producerId, s.producerEpoch, commit)], true);
      if (result.errorCode !== ErrorCode.NONE) throw new TransactionMarkerError(log.topic, log.partition, result.errorCode);
      this.deps.logs.appended(log);
    }
    await this.deps.logs.waitDurable();
    if (commit) {
      for (const [group, offsets] of Object.entries(s.offsets)) {
        const entries: OffsetCommitEntry[] = offsets.map(([topic, partition, offset, leaderEpoch, metadata]) => ({
          topic,
          partition,
          offset,
          leaderEpoch,
          metadata,
          commitTimestamp: Date.now(),
        }));
        await this.deps.groups.commitOffsets(group, entries);
      }
    }
    const done: TxnState = { ...s, status: commit ? 'CompleteCommit' : 'CompleteAbort', sinceMs: Date.now(), partitions: [], offsets: {} };
    // Not awaited to disk: the markers and offsets above are, so a restart that finds the transaction still
    // prepared only runs this second phase again (idempotent). Kafka answers EndTxn once the decision is logged, too.
    await this.journal.put(done, 'later');
    this.deps.logger.debug({ transactionalId: s.transactionalId, commit }, 'transaction ended');
    return done;
  }

  /** Aborts transactions open longer than their timeout, bumping the epoch so their producer is fenced (as Kafka). */
  private async abortTimedOut(now = Date.now()): Promise<void> {
    for (const s of this.journal.states.values()) {
      if (s.status !== 'Ongoing' || now - s.sinceMs <= s.timeoutMs) continue;
      await this.turns
        .run(s.transactionalId, async () => {
          const latest = this.journal.states.get(s.transactionalId);
          if (latest?.status !== 'Ongoing' || latest.sinceMs !== s.sinceMs) return;
          this.deps.logger.info({ transactionalId: s.transactionalId }, 'transaction timed out; aborting');
          await this.complete({ ...latest, producerEpoch: this.nextEpoch(latest.producerEpoch) }, false);
        })
        .catch((err: unknown) => this.deps.logger.error({ err, transactionalId: s.transactionalId }, 'aborting a timed-out transaction failed'));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.turns.settled();
    await this.journal.close();
  }
}

/** A marker could not be appended to a partition of the transaction (the transaction stays decided; recovery retries). */
export class TransactionMarkerError extends Error {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly errorCode: number,
  ) {
    super(`transaction marker refused by ${topic}-${partition} (error ${errorCode})`);
    this.name = 'TransactionMarkerError';
  }
}
