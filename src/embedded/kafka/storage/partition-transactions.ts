import fs from 'node:fs';
import path from 'node:path';
import { isControl, isTransactional } from '../protocol/control-batch';
import { writeFileDurable } from './fs-util';
import type { BatchHeader } from '../protocol/record-batch';

/** An aborted transaction's span in one partition: its first data offset and its abort marker's offset. */
export interface AbortedRange {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
}

/**
 * What one partition knows of transactions (KIP-98): the open ones (producer id → offset of its first
 * transactional batch here), which hold the last stable offset back, and the aborted ones, which read_committed
 * fetches list so clients drop their records. A marker (control batch) of a producer closes its open transaction.
 */
export class PartitionTransactions {
  private readonly open = new Map<number, number>();
  private aborted: AbortedRange[] = [];

  /**
   * The transactions open when a segment rolled are written beside the new segment (`<base>.txn`), since only the
   * active segment is scanned at open: a transaction begun in an older segment keeps its first offset across a
   * restart, so its abort covers all of it. The previous segment's file is superseded.
   */
  saveAtRoll(dir: string, newBase: number, previousBase: number): void {
    if (this.open.size > 0) writeFileDurable(snapshotFile(dir, newBase), JSON.stringify([...this.open]), dir);
    fs.rmSync(snapshotFile(dir, previousBase), { force: true });
  }

  /** Loads what `saveAtRoll` wrote for the active segment, before that segment is scanned. */
  loadAtOpen(dir: string, activeBase: number): void {
    const file = snapshotFile(dir, activeBase);
    if (!fs.existsSync(file)) return;
    for (const [producerId, firstOffset] of JSON.parse(fs.readFileSync(file, 'utf8')) as [number, number][]) this.open.set(producerId, firstOffset);
  }

  /** Every appended batch, in offset order (appends and the scan at open). */
  observe(h: BatchHeader, baseOffset: number): void {
    if (!isTransactional(h)) return;
    if (isControl(h)) this.open.delete(h.producerId);
    else if (!this.open.has(h.producerId)) this.open.set(h.producerId, baseOffset);
  }

  /** The first offset of the producer's open transaction here, if it has one. */
  firstOffsetOf(producerId: number): number | undefined {
    return this.open.get(producerId);
  }

  /** Records an aborted span, before its marker is appended, so no reader sees the marker without it. */
  addAborted(range: AbortedRange): void {
    if (this.aborted.some((a) => a.producerId === range.producerId && a.firstOffset === range.firstOffset)) return;
    this.aborted.push({ producerId: range.producerId, firstOffset: range.firstOffset, lastOffset: range.lastOffset });
  }

  /** Below this no transaction is open: the high watermark, or the first offset of the oldest open transaction. */
  lastStableOffset(highWatermark: number): number {
    let lso = highWatermark;
    for (const first of this.open.values()) if (first < lso) lso = first;
    return lso;
  }

  /**
   * Aborted spans overlapping [from, upTo): what a read_committed fetch of that range must be told. Spans are added
   * in marker order, so sorted by last offset: the search starts at the first one ending at or after `from`.
   */
  abortedBetween(from: number, upTo: number): AbortedRange[] {
    let lo = 0;
    let hi = this.aborted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.aborted[mid]!.lastOffset < from) lo = mid + 1;
      else hi = mid;
    }
    return this.aborted.slice(lo).filter((a) => a.firstOffset < upTo);
  }
}

const snapshotFile = (dir: string, base: number): string => path.join(dir, `${String(base).padStart(20, '0')}.txn`);
