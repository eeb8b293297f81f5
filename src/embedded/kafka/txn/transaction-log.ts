import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../logger';
import { JournalCompaction, journalLine, replayJournal, rewriteJournal } from '../storage/checked-journal';
import type { AbortedRange } from '../storage/partition-transactions';
import type { FsyncPolicy } from '../storage/log-manager';
import { fdatasync, writeAllSync } from '../storage/fs-util';
import type { TxnState } from './transaction-state';

/** An aborted span of one partition, journaled before its marker is written. */
export interface PartitionAbort extends AbortedRange {
  topic: string;
  partition: number;
}

/** One journal line: a transactional id's whole new state, or the aborted spans of one abort. */
type TxnLogRecord = { s: TxnState } | { a: PartitionAbort[] };

/**
 * When a journaled state must be on disk: `now`, before the coordinator acts on it (the default); `later`, for a
 * state whose loss a restart repairs by itself. A `later` line is kept in memory and written with the next `now`
 * line, in one write (the journal is one append-only file), or by the periodic `syncIfBehind`: a transaction's
 * five lines cost two writes, not five.
 */
export type Durability = 'now' | 'later';

const FILE = 'transactions.journal';

/**
 * The durable transaction log (Kafka's `__transaction_state`, on one node): CRC-32C-framed JSON lines
 * `<crc hex> <json>\n`, each a transactional id's full state or the aborted spans of an abort. A state change
 * is durable (fsync under the `always` policy) before the coordinator acts on it, so a restart finds every
 * transaction either not decided (aborted then) or decided (Prepare*: its markers are written again) or done.
 * A torn tail is cut at open; the journal is rewritten with the live states when most of it is superseded.
 */
export class TransactionLog {
  readonly states = new Map<string, TxnState>();
  /** Transactional id by producer id (a producer id belongs to one transactional id for good). */
  readonly byProducerId = new Map<number, string>();
  aborts: PartitionAbort[] = [];
  private fd: number;
  private size: number;
  /** Lines in the file: compaction is due when most of them are superseded. */
  private lines: number;
  /** fsyncs under way on the current file (it is not swapped for a compacted one meanwhile). */
  private syncing = 0;
  private readonly compaction = new JournalCompaction();
  /** Lines written with `later` durability since the last fsync began. */
  private behind = false;
  /** `later` lines not in the file yet, in journal order; their states are applied already. */
  private unwritten: Buffer[] = [];

  /**
   * `stillNeeded`: whether an aborted span may still be read (its partition exists and retention has not passed it);
   * compaction drops the others.
   */
  constructor(
    private readonly dir: string,
    private readonly fsync: FsyncPolicy,
    logger: Logger,
    private readonly stillNeeded: (abort: PartitionAbort) => boolean = () => true,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, FILE);
    const { validBytes, lines } = this.replay(file);
    this.lines = lines;
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT);
    this.size = validBytes;
    if (fs.fstatSync(this.fd).size !== validBytes) {
      logger.warn({ file, validBytes }, 'transaction journal had a torn tail; truncated');
      fs.ftruncateSync(this.fd, validBytes);
    }
    this.compactIfSuperseded();
  }

  /** Compacts once most lines are superseded (JournalCompaction); not while an fsync works on the file it replaces. */
  private compactIfSuperseded(): void {
    if (this.syncing === 0 && this.compaction.due(this.lines, () => this.states.size + 1)) this.compact();
  }

  private replay(file: string): { validBytes: number; lines: number } {
    return replayJournal<TxnLogRecord>(file, (record) => this.apply(record));
  }

  private apply(record: TxnLogRecord): void {
    if ('s' in record) {
      this.states.set(record.s.transactionalId, record.s);
      this.byProducerId.set(record.s.producerId, record.s.transactionalId);
    } else {
      this.aborts.push(...record.a);
    }
  }

  private static line(record: TxnLogRecord): Buffer {
    return journalLine(record);
  }

  private compact(): void {
    // The live states include what the unwritten lines said.
    this.unwritten = [];
    this.aborts = this.aborts.filter(this.stillNeeded);
    const lines = [...this.states.values()].map((s) => TransactionLog.line({ s }));
    if (this.aborts.length > 0) lines.push(TransactionLog.line({ a: this.aborts }));
    ({ fd: this.fd, size: this.size } = rewriteJournal(path.join(this.dir, FILE), this.dir, this.fd, lines));
    this.lines = lines.length;
  }

  /** Journals a transactional id's new state; with `now`, resolves once durable under the fsync policy. */
  put(state: TxnState, durability: Durability = 'now'): Promise<void> {
    return this.write({ s: state }, durability);
  }

  /** Journals aborted spans; resolves once durable under the fsync policy. */
  putAborts(aborts: PartitionAbort[]): Promise<void> {
    return this.write({ a: aborts });
  }

  /** Every transaction adds a few lines: the file is rewritten with the live states once most of it is superseded. */
  private async write(record: TxnLogRecord, durability: Durability = 'now'): Promise<void> {
    this.compactIfSuperseded();
    const line = TransactionLog.line(record);
    this.lines++;
    this.apply(record);
    if (durability === 'later') {
      this.unwritten.push(line);
      this.behind = true;
      return;
    }
    this.writeOut(line);
    if (this.fsync !== 'always') return;
    await this.sync();
  }

  /** Appends the unwritten `later` lines, then `line` if given, in one write. */
  private writeOut(line?: Buffer): void {
    if (line) this.unwritten.push(line);
    if (this.unwritten.length === 0) return;
    const data = this.unwritten.length === 1 ? (this.unwritten[0] as Buffer) : Buffer.concat(this.unwritten);
    this.unwritten = [];
    writeAllSync(this.fd, data, this.size);
    this.size += data.length;
  }

  private async sync(): Promise<void> {
    this.behind = false;
    this.syncing++;
    try {
      await fdatasync(this.fd);
    } catch (error) {
      // The lines are still not known to be on disk: the next periodic sync tries again.
      this.behind = true;
      throw error;
    } finally {
      this.syncing--;
    }
  }

  /** Writes the `later` lines still in memory and fsyncs them (under the `always` policy), if any are not yet covered. */
  async syncIfBehind(): Promise<void> {
    if (!this.behind) return;
    this.writeOut();
    if (this.fsync === 'always') await this.sync();
    else this.behind = false;
  }

  async close(): Promise<void> {
    this.writeOut();
    await fdatasync(this.fd);
    fs.closeSync(this.fd);
  }
}
