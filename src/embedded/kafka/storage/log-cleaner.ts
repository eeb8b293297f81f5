import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../logger';
import { summarizeRecords, rewriteBatch } from '../protocol/record-filter';
import type { CompactionConfig } from './compaction-config';
import { writeFileDurable } from './fs-util';
import type { PartitionLog } from './partition-log';
import { CLEANED_SUFFIX, segmentFileName, type Segment } from './segment';

/** Per partition directory: the offset below which the log is clean (Kafka's cleaner checkpoint). */
const CHECKPOINT_FILE = 'cleaner.checkpoint';

export interface CompactedPartition {
  log: PartitionLog;
  config: CompactionConfig;
}

/**
 * Log compaction (Kafka's LogCleaner) for topics with `cleanup.policy` compact or compact,delete. In the
 * closed segments below the last stable offset it keeps the last record of each key, drops tombstones whose
 * time is older than `delete.retention.ms`, and keeps every kept record's offset. The active segment is
 * never touched, so produce goes on; a segment is rewritten beside itself and swapped in at once (see
 * PartitionLog.replaceSegment), so fetch goes on too. A partition is cleaned when its bytes not cleaned yet
 * reach `min.cleanable.dirty.ratio` of its closed segments. Batches the cleaner does not rewrite are kept
 * whole: snappy, lz4 and zstd batches (not decoded here), transactional and control batches.
 */
export class LogCleaner {
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly partitions: () => CompactedPartition[],
    private readonly logger: Logger,
  ) {}

  /** One pass over the compacted partitions; a pass still running is not doubled. */
  run(now = Date.now()): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.pass(now).finally(() => (this.running = null));
    return this.running;
  }

  /** Waits for the pass under way; no new one starts. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async pass(now: number): Promise<void> {
    for (const { log, config } of this.partitions()) {
      if (this.stopped) return;
      try {
        const cleaned = await cleanPartition(log, config, now);
        if (cleaned > 0) this.logger.debug({ topic: log.topic, partition: log.partition, segments: cleaned }, 'log cleaner compacted segments');
      } catch (err) {
        this.logger.error({ err, topic: log.topic, partition: log.partition }, 'log cleaning failed');
      }
    }
  }
}

function cleanedUpTo(log: PartitionLog): number {
  try {
    return Number(fs.readFileSync(path.join(log.dir, CHECKPOINT_FILE), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** Compacts one partition when dirty enough; answers how many segments were rewritten. */
export async function cleanPartition(log: PartitionLog, config: CompactionConfig, now: number): Promise<number> {
  const segments = log.cleanableSegments();
  const from = cleanedUpTo(log);
  let total = 0;
  let dirty = 0;
  for (const s of segments) {
    total += s.size;
    if (s.nextOffset > from) dirty += s.size;
  }
  if (dirty === 0 || dirty / total < config.minCleanableDirtyRatio) return 0;
  const latest = await latestOffsets(segments);
  let rewritten = 0;
  for (const segment of segments) {
    if (await rewrite(log, segment, latest, now - config.deleteRetentionMs)) rewritten++;
  }
  writeFileDurable(path.join(log.dir, CHECKPOINT_FILE), String(segments.at(-1)!.nextOffset), log.dir);
  return rewritten;
}

const keyOf = (key: Buffer): string => key.toString('latin1');

/** The offset of the last record of each key in these segments. */
async function latestOffsets(segments: readonly Segment[]): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  for (const s of segments) {
    for await (const batch of s.batches()) {
      for (const { summary } of summarizeRecords(batch) ?? []) {
        if (summary.key !== null) latest.set(keyOf(summary.key), summary.offset);
      }
    }
  }
  return latest;
}

/** Writes the segment's cleaned copy and swaps it in; false when nothing in it is superseded. */
async function rewrite(log: PartitionLog, segment: Segment, latest: Map<string, number>, tombstoneHorizon: number): Promise<boolean> {
  const out: Buffer[] = [];
  let changed = false;
  for await (const batch of segment.batches()) {
    const records = summarizeRecords(batch);
    if (!records) {
      out.push(batch);
      continue;
    }
    const kept = records.filter(({ summary: r }) => {
      if (r.key === null) return true;
      return latest.get(keyOf(r.key)) === r.offset && !(r.isTombstone && r.timestamp < tombstoneHorizon);
    });
    if (kept.length === records.length) out.push(batch);
    else {
      changed = true;
      if (kept.length > 0)
        out.push(
          rewriteBatch(
            batch,
            kept.map((k) => k.raw),
          ),
        );
    }
  }
  if (!changed) return false;
  const file = path.join(log.dir, segmentFileName(segment.baseOffset, 'log') + CLEANED_SUFFIX);
  const handle = await fs.promises.open(file, 'w');
  try {
    await handle.writeFile(Buffer.concat(out));
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return log.replaceSegment(segment, out.length === 0);
}
