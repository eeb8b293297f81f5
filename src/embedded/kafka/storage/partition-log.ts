import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../protocol/errors';
import { decodeRecords } from '../protocol/batch-records';
import {
  type BatchHeader,
  assignBaseOffset,
  batchBaseOffsetAt,
  batchCrcValid,
  batchLastOffsetAt,
  readBatchHeader,
  stampLogAppendTime,
} from '../protocol/record-batch';
import { fsyncDir } from './fs-util';
import type { LogConfig } from './log-config';
import { PartitionTransactions } from './partition-transactions';
import { ProducerStateTable } from './producer-state';
import { CLEANED_SUFFIX, Segment, segmentFileName } from './segment';

export interface AppendResult {
  errorCode: number;
  baseOffset: number;
  /** The time the broker stamped on the batches (LogAppendTime topics), else -1. */
  logAppendTimeMs: number;
}

export interface ReadResult {
  errorCode: number;
  records: Buffer | null;
}

/** How long a deleted segment's files stay open for reads already under way. */
const DELETED_SEGMENT_GRACE_MS = 10_000;

/**
 * The log of one partition: segments of stored batches, the offsets that describe them, and the
 * idempotent-producer window. Offsets:
 *   logStartOffset ≤ highWatermark ≤ logEndOffset
 * Appends move logEndOffset at once; the high watermark (what fetch and ListOffsets latest see) moves when
 * the appended bytes are durable under the fsync policy (see LogManager).
 */
export class PartitionLog {
  private segments: Segment[] = [];
  /** Segments rolled since the last sync: their tails still need an fsync. */
  private unsynced: Segment[] = [];
  private dirEntryDirty = false;
  private readonly producers = new ProducerStateTable();
  /** Open and aborted transactions: the last stable offset and read_committed fetches. */
  readonly transactions = new PartitionTransactions();
  private readonly graveyard = new Set<{ segment: Segment; timer: NodeJS.Timeout }>();
  private readonly listeners = new Set<() => void>();
  private readonly commitListeners = new Set<() => void>();
  highWatermark = 0;
  /** The end of what the group commit under way covers (LogManager sets it as the commit starts). */
  private commitStartEnd = 0;
  private retired = false;

  private constructor(
    readonly dir: string,
    readonly topic: string,
    readonly partition: number,
    public config: LogConfig,
  ) {}

  /** Opens (recovering the active segment: torn tail truncated) or creates the partition's directory. */
  static open(dir: string, topic: string, partition: number, config: LogConfig): PartitionLog {
    const log = new PartitionLog(dir, topic, partition, config);
    fs.mkdirSync(dir, { recursive: true });
    // A cleaning cut short by a crash left its new segment unswapped: the old one is still in place.
    for (const f of fs.readdirSync(dir)) if (f.endsWith(CLEANED_SUFFIX)) fs.rmSync(path.join(dir, f), { force: true });
    const bases = fs
      .readdirSync(dir)
      .filter((f) => /^\d{20}\.log$/.test(f))
      .map((f) => Number(f.slice(0, 20)))
      .sort((a, b) => a - b);
    const activeBase = bases[bases.length - 1];
    if (activeBase !== undefined) log.transactions.loadAtOpen(dir, activeBase);
    bases.forEach((base, i) => {
      const active = i === bases.length - 1;
      log.segments.push(Segment.open(dir, base, config.indexIntervalBytes, active, active ? (h) => log.observeStored(h) : undefined));
    });
    if (log.segments.length === 0) {
      log.segments.push(Segment.create(dir, 0, config.indexIntervalBytes));
      fsyncDir(dir);
    }
    log.highWatermark = log.logEndOffset;
    return log;
  }

  private observeStored(h: BatchHeader): void {
    this.producers.record(h, h.baseOffset);
    this.transactions.observe(h, h.baseOffset);
  }

  /** Below this offset no transaction is open (what read_committed readers may see). */
  get lastStableOffset(): number {
    return this.transactions.lastStableOffset(this.highWatermark);
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  get logStartOffset(): number {
    return this.segments[0]!.baseOffset;
  }

  get logEndOffset(): number {
    return this.active.nextOffset;
  }

  get sizeBytes(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }

  /** True once the partition's topic was deleted. */
  get isRetired(): boolean {
    return this.retired;
  }

  /** Called whenever the high watermark moves, and once when the topic is deleted (fetch long-polls park on this). */
  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Where the records a group commit is making durable end: the high watermark, or beyond it while a commit is
   * under way. highWatermark ≤ committingEnd ≤ logEndOffset.
   */
  get committingEnd(): number {
    return Math.max(this.highWatermark, this.commitStartEnd);
  }

  /** Called when a group commit of records below `end` starts, and once when the topic is deleted. */
  onCommitStart(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /** A group commit of everything below `end` has started (LogManager.flush). */
  beginCommit(end: number): void {
    if (end <= this.committingEnd) return;
    this.commitStartEnd = Math.min(end, this.logEndOffset);
    for (const l of [...this.commitListeners]) l();
  }

  advanceHighWatermark(to: number): void {
    if (to <= this.highWatermark) return;
    this.highWatermark = Math.min(to, this.logEndOffset);
    for (const l of [...this.listeners]) l();
  }

  /**
   * Validates and appends a produce request's batches for this partition (page cache; not yet durable). On
   * a LogAppendTime topic each batch is stamped with the append time first. `builtHere`: the batches come from
   * this process's encoder (the in-process write log), which computed their CRC a moment ago; it is not
   * computed a second time.
   */
  append(batches: Buffer[], builtHere = false): AppendResult {
    const fail = (errorCode: number): AppendResult => ({ errorCode, baseOffset: -1, logAppendTimeMs: -1 });
    const headers: BatchHeader[] = [];
    for (const batch of batches) {
      const h = readBatchHeader(batch);
      if (h.magic !== 2) return fail(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT);
      if (h.size > this.config.maxMessageBytes) return fail(ErrorCode.MESSAGE_TOO_LARGE);
      if (h.lastOffsetDelta < 0 || h.recordCount !== h.lastOffsetDelta + 1 || (!builtHere && !batchCrcValid(batch))) return fail(ErrorCode.CORRUPT_MESSAGE);
      headers.push(h);
    }
    const logAppendTimeMs = this.config.messageTimestampType === 'LogAppendTime' ? Date.now() : -1;
    let firstOffset = -1;
    for (let i = 0; i < batches.length; i++) {
      const h = headers[i]!;
      const batch = batches[i]!;
      const check = this.producers.check(h);
      if (check.kind === 'error') return fail(check.errorCode);
      if (check.kind === 'duplicate') {
        if (firstOffset < 0) firstOffset = check.baseOffset;
        continue;
      }
      const base = this.logEndOffset;
      this.maybeRoll(batch.length);
      assignBaseOffset(batch, base);
      if (logAppendTimeMs >= 0) stampLogAppendTime(batch, logAppendTimeMs);
      this.active.append(batch, base, base + h.lastOffsetDelta, logAppendTimeMs >= 0 ? logAppendTimeMs : h.maxTimestamp);
      this.producers.record(h, base);
      this.transactions.observe(h, base);
      if (firstOffset < 0) firstOffset = base;
    }
    return { errorCode: ErrorCode.NONE, baseOffset: firstOffset, logAppendTimeMs };
  }

  private maybeRoll(incoming: number): void {
    const seg = this.active;
    if (seg.isEmpty) return;
    if (seg.size + incoming <= this.config.segmentBytes && Date.now() - seg.createdAt < this.config.segmentMs) return;
    this.roll();
  }

  private roll(): void {
    this.active.releaseRecent();
    this.unsynced.push(this.active);
    this.transactions.saveAtRoll(this.dir, this.logEndOffset, this.active.baseOffset);
    this.segments.push(Segment.create(this.dir, this.logEndOffset, this.config.indexIntervalBytes));
    this.dirEntryDirty = true;
  }

  /** Whether segments rolled since the last sync (the 'interval' and 'never' policies fsync them at once). */
  get rolledSinceSync(): boolean {
    return this.unsynced.length > 0;
  }

  /** Makes everything appended so far durable: rolled segments, the directory entry, the active tail. */
  async sync(): Promise<void> {
    if (this.retired) return;
    const rolled = this.unsynced;
    this.unsynced = [];
    await Promise.all(rolled.map((s) => s.sync()));
    for (const s of rolled) s.syncIndexSync();
    if (this.dirEntryDirty) {
      this.dirEntryDirty = false;
      fsyncDir(this.dir);
    }
    await this.active.sync();
  }

  /**
   * Whole batches from the one containing `offset`, below `upTo` (the high watermark; the committing end for the
   * in-process readers that may see records while their group commit is under way) and about `maxBytes`.
   */
  async read(offset: number, maxBytes: number, upTo = this.highWatermark): Promise<ReadResult> {
    if (offset < this.logStartOffset || offset > upTo) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, records: null };
    if (offset === upTo) return { errorCode: ErrorCode.NONE, records: null };
    for (let i = this.segmentIndexFor(offset); i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      if (seg.isEmpty || offset >= seg.nextOffset) continue;
      return { errorCode: ErrorCode.NONE, records: await seg.read(offset, upTo, maxBytes) };
    }
    return { errorCode: ErrorCode.NONE, records: null };
  }

  private segmentIndexFor(offset: number): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.segments[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The first offset whose record timestamp is ≥ ts (ListOffsets by timestamp); -1/-1 when none. */
  async offsetForTimestamp(ts: number): Promise<{ offset: number; timestamp: number }> {
    for (const seg of this.segments) {
      if (seg.maxTimestamp < ts) continue;
      const batch = await seg.firstBatchAtOrAfter(ts);
      if (!batch) continue;
      if (batchLastOffsetAt(batch, 0) >= this.highWatermark) break;
      const hit = decodeRecords(batch)?.find((r) => r.timestamp >= ts);
      if (hit) return { offset: hit.offset, timestamp: hit.timestamp };
      return { offset: batchBaseOffsetAt(batch, 0), timestamp: ts };
    }
    return { offset: -1, timestamp: -1 };
  }

  /** Deletes closed segments past `retention.ms` or beyond `retention.bytes`; rolls an expired active one. */
  enforceRetention(now: number): number {
    const { retentionMs, retentionBytes } = this.config;
    const expired = (s: Segment): boolean => retentionMs >= 0 && !s.isEmpty && now - (s.maxTimestamp >= 0 ? s.maxTimestamp : s.lastModified()) > retentionMs;
    if (expired(this.active) && this.logEndOffset === this.highWatermark) this.roll();
    let deleted = 0;
    let total = this.sizeBytes;
    while (this.segments.length > 1) {
      const oldest = this.segments[0]!;
      if (oldest.nextOffset > this.highWatermark) break;
      const overSize = retentionBytes >= 0 && total - oldest.size >= retentionBytes;
      // A segment the log cleaner emptied (compact,delete) goes with the expired one after it.
      if (!overSize && !expired(oldest) && !(oldest.isEmpty && expired(this.segments[1]!))) break;
      this.segments.shift();
      this.unsynced = this.unsynced.filter((s) => s !== oldest);
      total -= oldest.size;
      this.bury(oldest);
      deleted++;
    }
    return deleted;
  }

  /**
   * Closed segments wholly below the last stable offset, as in Kafka: what the log cleaner may rewrite. (A
   * record superseded past it could go before read_committed readers may see the one that supersedes it.)
   */
  cleanableSegments(): readonly Segment[] {
    const stable = this.lastStableOffset;
    return this.segments.slice(0, -1).filter((s) => s.nextOffset <= stable);
  }

  /**
   * Puts a cleaned copy (`<base>.log.cleaned`, already durable) in place of a closed segment, synchronously so
   * no append or read sees a half swap: the old index goes (it is rebuilt from the new log), the rename
   * replaces the log atomically, and reads under way finish on the old file. A crash leaves the old segment
   * or the new one under its name, never neither. `empty`: nothing is left, and the segment is dropped unless
   * it is the first (its base offset is the log start offset). False when the segment is gone meanwhile.
   */
  replaceSegment(old: Segment, empty: boolean): boolean {
    const at = this.segments.indexOf(old);
    const cleaned = path.join(this.dir, segmentFileName(old.baseOffset, 'log') + CLEANED_SUFFIX);
    if (at < 0 || at === this.segments.length - 1 || this.retired) {
      fs.rmSync(cleaned, { force: true });
      return false;
    }
    this.unsynced = this.unsynced.filter((s) => s !== old);
    if (empty && at > 0) {
      fs.rmSync(cleaned, { force: true });
      this.segments.splice(at, 1);
      this.bury(old);
      fsyncDir(this.dir);
      return true;
    }
    fs.rmSync(path.join(this.dir, segmentFileName(old.baseOffset, 'index')), { force: true });
    fs.renameSync(cleaned, path.join(this.dir, segmentFileName(old.baseOffset, 'log')));
    fsyncDir(this.dir);
    this.segments[at] = Segment.open(this.dir, old.baseOffset, this.config.indexIntervalBytes, false);
    this.bury(old, false);
    return true;
  }

  private bury(segment: Segment, deleteFiles = true): void {
    if (deleteFiles) segment.deleteFiles();
    const entry = {
      segment,
      timer: setTimeout(() => {
        this.graveyard.delete(entry);
        segment.close();
      }, DELETED_SEGMENT_GRACE_MS).unref(),
    };
    this.graveyard.add(entry);
  }

  /**
   * Closes the partition for good (its topic was deleted): reads and fsyncs under way may still use the
   * files for a grace period; `close()` later ends that early.
   */
  retire(): void {
    this.retired = true;
    // Waiters (long-polling fetches, in-process consumers) wake now and find the partition gone.
    const waiting = [...this.listeners, ...this.commitListeners];
    this.listeners.clear();
    this.commitListeners.clear();
    for (const l of waiting) l();
    for (const s of this.segments) this.bury(s, false);
    this.unsynced = [];
  }

  close(): void {
    for (const g of this.graveyard) {
      clearTimeout(g.timer);
      g.segment.close();
    }
    this.graveyard.clear();
    for (const s of this.segments) s.close();
    this.listeners.clear();
    this.commitListeners.clear();
  }
}
