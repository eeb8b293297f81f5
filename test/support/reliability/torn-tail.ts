import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD as LOG_OVERHEAD, batchCrcValid, CRC_START } from '../../../src/embedded/kafka/protocol/record-batch';
import type { Prng } from './prng';

// Record batch v2 framing (protocol/record-batch.ts): baseOffset i64 at 0, batchLength i32 at 8 (the bytes after it),
// the CRC at 17 over the bytes from CRC_START, lastOffsetDelta i32 at 23.

export type TornShape = 'partial-header' | 'half-batch' | 'bad-crc' | 'stale-offset' | 'random-bytes';
export const TORN_SHAPES: readonly TornShape[] = ['partial-header', 'half-batch', 'bad-crc', 'stale-offset', 'random-bytes'];

export interface TornSegment {
  file: string;
  shape: TornShape;
  /** Size of the segment before the torn bytes were appended: what recovery must cut it back to. */
  validSize: number;
  /** SHA-256 of those valid bytes: recovery must leave them as they were. */
  validSha256: string;
  /** The offset the next batch must start at (undefined for an empty segment). */
  nextOffset: bigint | undefined;
  appended: number;
}

/** The active (highest base offset) segment of each partition of a topic in an embedded broker's data directory. */
export function activeSegments(kafkaDir: string, topic: string): string[] {
  const topicDir = path.join(kafkaDir, 'topics', topic);
  return fs
    .readdirSync(topicDir)
    .filter((entry) => /^\d+$/.test(entry))
    .sort((a, b) => Number(a) - Number(b))
    .map((partition) => {
      const dir = path.join(topicDir, partition);
      const last = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .sort()
        .pop();
      if (!last) throw new Error(`no segment in ${dir}`);
      return path.join(dir, last);
    });
}

/** Position and bytes of the last complete batch of a segment file, and the offset after it. */
function lastBatch(bytes: Buffer): { batch: Buffer; nextOffset: bigint } | undefined {
  let pos = 0;
  let last: Buffer | undefined;
  while (pos + LOG_OVERHEAD <= bytes.length) {
    const size = bytes.readInt32BE(pos + 8) + LOG_OVERHEAD;
    if (pos + size > bytes.length) break;
    last = bytes.subarray(pos, pos + size);
    pos += size;
  }
  if (!last) return undefined;
  const lastOffsetDelta = last.readInt32BE(23);
  return { batch: Buffer.from(last), nextOffset: last.readBigInt64BE(0) + BigInt(lastOffsetDelta) + 1n };
}

/**
 * Appends what a crash in the middle of an append could leave behind: part of a batch header, a batch cut short,
 * a whole batch whose CRC does not match (at the right next offset), a repeated batch at a stale offset, or noise.
 */
export function tearSegment(file: string, shape: TornShape, prng: Prng): TornSegment {
  const bytes = fs.readFileSync(file);
  const validSize = bytes.length;
  const last = lastBatch(bytes);
  let tail: Buffer;
  if (shape === 'partial-header' || !last) {
    tail = prng.bytes(prng.int(1, 60));
    if (last) {
      const offset = Buffer.alloc(8);
      offset.writeBigInt64BE(last.nextOffset);
      offset.copy(tail, 0, 0, Math.min(tail.length, 8));
    }
  } else if (shape === 'half-batch') {
    const copy = Buffer.from(last.batch);
    copy.writeBigInt64BE(last.nextOffset, 0);
    tail = copy.subarray(0, prng.int(LOG_OVERHEAD, copy.length - 1));
  } else if (shape === 'bad-crc') {
    tail = Buffer.from(last.batch);
    tail.writeBigInt64BE(last.nextOffset, 0);
    const at = prng.int(CRC_START + 4, tail.length - 1);
    tail[at] = (tail[at] ?? 0) ^ 0xff;
  } else if (shape === 'stale-offset') {
    tail = Buffer.from(last.batch);
  } else {
    tail = prng.bytes(prng.int(64, 4096));
  }
  fs.appendFileSync(file, tail);
  return { file, shape, validSize, validSha256: sha256(bytes), nextOffset: last?.nextOffset, appended: tail.length };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Why a torn segment was not recovered (undefined when it was): its valid bytes must be intact and the torn
 * bytes gone. The restarted service may already have appended new batches, so what follows the valid bytes must
 * be whole batches, each with a matching CRC, that go on from the next offset. The torn bytes are not compared with
 * what follows: a batch written after the restart at the same offset can begin with the same bytes as a half batch
 * the tear left (offset, length, epoch and magic, as an abort marker after a commit marker does).
 */
export function recoveryProblem(t: TornSegment): string | undefined {
  const bytes = fs.readFileSync(t.file);
  if (bytes.length < t.validSize) return `cut below the valid size (${bytes.length} < ${t.validSize})`;
  if (sha256(bytes.subarray(0, t.validSize)) !== t.validSha256) return 'the valid bytes changed';
  let pos = t.validSize;
  let expected = t.nextOffset;
  while (pos < bytes.length) {
    if (pos + LOG_OVERHEAD > bytes.length) return `a partial header at ${pos}`;
    const size = bytes.readInt32BE(pos + 8) + LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE) return `a batch length below a batch header at ${pos}`;
    if (pos + size > bytes.length) return `a batch cut short at ${pos}`;
    if (!batchCrcValid(bytes.subarray(pos, pos + size))) return `a batch at ${pos} whose CRC does not match (torn bytes kept?)`;
    const base = bytes.readBigInt64BE(pos);
    if (expected !== undefined && base !== expected) return `a batch at offset ${base} where ${expected} was next (torn bytes kept?)`;
    expected = base + BigInt(bytes.readInt32BE(pos + 23)) + 1n;
    pos += size;
  }
  return undefined;
}
