import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import {
  type BatchInput,
  LOG_APPEND_TIME_FLAG,
  batchCrcValid,
  encodeRecordBatch,
  readBatchHeader,
  splitBatches,
} from '../../../src/embedded/kafka/protocol/record-batch';
import { decodeRecords } from '../../../src/embedded/kafka/protocol/batch-records';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../src/embedded/kafka/storage/log-config';
import { PartitionLog } from '../../../src/embedded/kafka/storage/partition-log';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-plog-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const open = (config: Partial<LogConfig> = {}): PartitionLog => PartitionLog.open(dir, 't', 0, { ...DEFAULT_LOG_CONFIG, ...config });
const batch = (values: string[], more: Partial<BatchInput> = {}): Buffer => encodeRecordBatch({ records: values.map((value) => ({ value })), ...more });

/** Appends and publishes (what the log manager does once the bytes are durable). */
function append(log: PartitionLog, ...batches: Buffer[]): number {
  const r = log.append(batches);
  expect(r.errorCode).toBe(ErrorCode.NONE);
  log.advanceHighWatermark(log.logEndOffset);
  return r.baseOffset;
}

async function values(log: PartitionLog, from = log.logStartOffset): Promise<string[]> {
  const out: string[] = [];
  let offset = from;
  while (offset < log.highWatermark) {
    const { records, errorCode } = await log.read(offset, 1 << 20);
    expect(errorCode).toBe(ErrorCode.NONE);
    for (const b of splitBatches(records!)) {
      for (const r of decodeRecords(b)!) if (r.offset >= offset) out.push(r.value!.toString());
      const h = readBatchHeader(b);
      offset = h.baseOffset + h.lastOffsetDelta + 1;
    }
  }
  return out;
}

const segments = (): string[] =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();

describe('partition log', () => {
  test('assigns consecutive offsets and serves whole batches from the one containing the offset', async () => {
    const log = open();
    expect(append(log, batch(['a', 'b', 'c']))).toBe(0);
    expect(append(log, batch(['d']), batch(['e', 'f']))).toBe(3);
    expect(log.logEndOffset).toBe(6);
    const mid = await log.read(1, 1 << 20);
    const first = splitBatches(mid.records!);
    expect(readBatchHeader(first[0]!).baseOffset).toBe(0); // the batch holding offset 1, not the next one
    expect(await values(log, 4)).toEqual(['e', 'f']);
    expect((await log.read(6, 100)).records).toBeNull();
    expect((await log.read(7, 100)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    log.close();
  });

  test('LogAppendTime: the broker stamps each batch (attribute bit, max timestamp, valid CRC) and reports the time', async () => {
    const log = open({ messageTimestampType: 'LogAppendTime' });
    const before = Date.now();
    const result = log.append([
      batch(['old', 'older'], {
        records: [
          { value: 'old', timestamp: 1000 },
          { value: 'older', timestamp: 2000 },
        ],
      }),
    ]);
    log.advanceHighWatermark(log.logEndOffset);
    expect(result.logAppendTimeMs).toBeGreaterThanOrEqual(before);
    expect(result.logAppendTimeMs).toBeLessThanOrEqual(Date.now());
    const stored = splitBatches((await log.read(0, 1 << 20)).records!)[0]!;
    const h = readBatchHeader(stored);
    expect(h.attributes & LOG_APPEND_TIME_FLAG).toBe(LOG_APPEND_TIME_FLAG);
    expect(h.maxTimestamp).toBe(result.logAppendTimeMs);
    expect(h.baseTimestamp).toBe(1000); // the producer's, untouched; readers take maxTimestamp
    expect(batchCrcValid(stored)).toBe(true);
    expect(decodeRecords(stored)!.map((r) => r.timestamp)).toEqual([result.logAppendTimeMs, result.logAppendTimeMs]);
    // Found by the append time, not by the producer's timestamps.
    expect(await log.offsetForTimestamp(5000)).toEqual({ offset: 0, timestamp: result.logAppendTimeMs });
    log.close();

    const create = open();
    const kept = create.append([batch(['x'], { records: [{ value: 'x', timestamp: 1234 }] })]);
    expect(kept.logAppendTimeMs).toBe(-1);
    create.close();
  });

  test('nothing past the high watermark is served', async () => {
    const log = open();
    log.append([batch(['hidden'])]);
    expect(log.logEndOffset).toBe(1);
    expect(log.highWatermark).toBe(0);
    expect((await log.read(0, 100)).records).toBeNull();
    log.advanceHighWatermark(1);
    expect(await values(log)).toEqual(['hidden']);
    log.close();
  });

  test('maxBytes stops at batch boundaries but always returns the first batch whole', async () => {
    const log = open();
    append(log, batch(['x'.repeat(500)]), batch(['y'.repeat(500)]), batch(['z']));
    const one = splitBatches((await log.read(0, 10)).records!);
    expect(one).toHaveLength(1);
    const two = splitBatches((await log.read(0, 1200)).records!);
    expect(two).toHaveLength(2);
    log.close();
  });

  test('refuses bad batches: CRC, size, magic, record count', () => {
    const log = open({ maxMessageBytes: 200 });
    const corrupt = batch(['a']);
    corrupt[corrupt.length - 1]! ^= 0xff;
    expect(log.append([corrupt]).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(log.append([batch(['x'.repeat(300)])]).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const magic1 = batch(['a']);
    magic1.writeInt8(1, 16);
    expect(log.append([magic1]).errorCode).toBe(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT);
    expect(log.logEndOffset).toBe(0);
    log.close();
  });

  test('rolls segments at segment.bytes and reads across them after reopening', async () => {
    let log = open({ segmentBytes: 300 });
    for (let i = 0; i < 10; i++) append(log, batch([`v${i}`.padEnd(100, '.')]));
    expect(segments().length).toBeGreaterThan(3);
    log.close();
    log = open({ segmentBytes: 300 });
    expect(log.logEndOffset).toBe(10);
    expect((await values(log)).map((v) => v.replace(/\.+$/, ''))).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`));
    log.close();
  });

  test('a torn tail is truncated on open: half a batch, or a last batch failing its CRC', async () => {
    let log = open();
    append(log, batch(['one']), batch(['two']));
    log.close();
    const file = path.join(dir, segments()[0]!);
    const good = fs.statSync(file).size;
    const third = batch(['three']);
    fs.appendFileSync(file, third.subarray(0, 30));
    log = open();
    expect(fs.statSync(file).size).toBe(good);
    expect(log.logEndOffset).toBe(2);
    append(log, batch(['three']));
    log.close();

    // Corrupt the last stored batch: its CRC no longer matches, so it goes.
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 2]! ^= 0x55;
    fs.writeFileSync(file, bytes);
    log = open();
    expect(log.logEndOffset).toBe(2);
    expect(await values(log)).toEqual(['one', 'two']);
    log.close();
  });

  test('a missing or stale index of a closed segment is rebuilt from the log', async () => {
    let log = open({ segmentBytes: 200 });
    for (let i = 0; i < 6; i++) append(log, batch([`r${i}`.padEnd(80, '-')]));
    log.close();
    const indexes = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.index'))
      .sort();
    fs.rmSync(path.join(dir, indexes[0]!));
    fs.writeFileSync(path.join(dir, indexes[1]!), Buffer.alloc(20, 0x7f));
    log = open({ segmentBytes: 200 });
    expect((await values(log)).map((v) => v.replace(/-+$/, ''))).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    log.close();
  });

  test("the active segment's index is written when it rolls or closes, not at sync; a copy taken before (a crash) still reads every batch", async () => {
    const log = open({ segmentBytes: 400 });
    const written = (): number =>
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.index'))
        .filter((f) => fs.statSync(path.join(dir, f)).size > 0).length;
    for (let i = 0; i < 2; i++) append(log, batch([`a${i}`.padEnd(80, '-')]));
    await log.sync();
    expect(segments()).toHaveLength(1);
    expect(written()).toBe(0);
    for (let i = 2; i < 8; i++) append(log, batch([`a${i}`.padEnd(80, '-')]));
    expect(segments().length).toBeGreaterThan(1);
    const crashed = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-plog-crash-'));
    try {
      for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(crashed, f));
      const copy = PartitionLog.open(crashed, 't', 0, { ...DEFAULT_LOG_CONFIG, segmentBytes: 400 });
      copy.advanceHighWatermark(copy.logEndOffset);
      const read: string[] = [];
      for (let offset = 0; offset < copy.highWatermark; offset++) {
        const { records } = await copy.read(offset, 1);
        const r = decodeRecords(splitBatches(records!)[0]!)!;
        read.push(r[0]!.value!.toString().replace(/-+$/, ''));
      }
      expect(read).toEqual(Array.from({ length: 8 }, (_, i) => `a${i}`));
      copy.close();
    } finally {
      fs.rmSync(crashed, { recursive: true, force: true });
    }
    await log.sync();
    expect(written()).toBe(segments().length - 1);
    log.close();
    expect(written()).toBe(segments().length);
  });

  test('retention by size deletes the oldest closed segments; earlier offsets are then out of range', async () => {
    const log = open({ segmentBytes: 250, retentionBytes: 500 });
    for (let i = 0; i < 10; i++) append(log, batch([`${i}`.padEnd(100, '#')]));
    const before = segments().length;
    expect(log.enforceRetention(Date.now())).toBeGreaterThan(0);
    expect(segments().length).toBeLessThan(before);
    expect(log.sizeBytes - fs.statSync(path.join(dir, segments()[0]!)).size).toBeLessThan(500);
    expect(log.logStartOffset).toBeGreaterThan(0);
    expect((await log.read(0, 100)).errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect((await values(log)).length).toBe(10 - log.logStartOffset);
    log.close();
  });

  test('retention by time deletes segments whose newest record is too old, the active one included', async () => {
    const log = open({ segmentBytes: 150, retentionMs: 60_000 });
    const old = Date.now() - 120_000;
    for (let i = 0; i < 3; i++) append(log, encodeRecordBatch({ records: [{ value: 'o'.repeat(100), timestamp: old }] }));
    log.enforceRetention(Date.now());
    expect(log.logStartOffset).toBe(3);
    expect(log.logEndOffset).toBe(3);
    append(log, batch(['fresh']));
    log.enforceRetention(Date.now());
    expect(await values(log)).toEqual(['fresh']);
    log.close();
  });

  test('offset for a timestamp is the first record at or after it', async () => {
    const log = open();
    append(log, encodeRecordBatch({ records: [10, 20, 30].map((t) => ({ value: `t${t}`, timestamp: 1000 + t })) }));
    append(log, encodeRecordBatch({ records: [{ value: 't40', timestamp: 1040 }] }));
    expect(await log.offsetForTimestamp(1015)).toEqual({ offset: 1, timestamp: 1020 });
    expect(await log.offsetForTimestamp(1040)).toEqual({ offset: 3, timestamp: 1040 });
    expect(await log.offsetForTimestamp(5000)).toEqual({ offset: -1, timestamp: -1 });
    log.close();
  });

  test('idempotent producers: retries of recent batches answer the original offset, gaps are refused, state survives reopen', () => {
    let log = open();
    const p = (seq: number, n: number, epoch = 0): Buffer =>
      encodeRecordBatch({ records: Array.from({ length: n }, (_, i) => ({ value: `s${seq + i}` })), producerId: 5, producerEpoch: epoch, baseSequence: seq });
    expect(append(log, p(0, 2))).toBe(0);
    expect(append(log, p(2, 1))).toBe(2);
    expect(log.append([p(0, 2)])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 0, logAppendTimeMs: -1 }); // duplicate
    expect(log.append([p(2, 1)])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 2, logAppendTimeMs: -1 });
    expect(log.logEndOffset).toBe(3);
    expect(log.append([p(5, 1)]).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    log.close();

    log = open();
    expect(log.append([p(2, 1)])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 2, logAppendTimeMs: -1 });
    expect(append(log, p(3, 1))).toBe(3);
    expect(log.append([p(0, 1, 1)]).errorCode).toBe(ErrorCode.NONE); // a new epoch restarts at 0
    expect(log.append([p(4, 1, 0)]).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    // Non-idempotent batches (kafkajs -1/0/0, librdkafka -1/-1/-1) are never checked.
    expect(log.append([encodeRecordBatch({ records: [{ value: 'x' }], producerId: -1, producerEpoch: 0, baseSequence: 0 })]).errorCode).toBe(ErrorCode.NONE);
    expect(log.append([encodeRecordBatch({ records: [{ value: 'x' }], producerId: -1, producerEpoch: 0, baseSequence: 0 })]).errorCode).toBe(ErrorCode.NONE);
    log.close();
  });

  test('reads of the newest batches (kept in memory) and of older ones (from the file) give the stored bytes, across a roll', async () => {
    const log = open({ segmentBytes: 400_000 });
    const big = (n: number): Buffer => batch([`${n}:${'x'.repeat(20_000)}`]);
    for (let n = 0; n < 60; n++) append(log, big(n)); // about 1.2 MB: three segments, the newest 512 KiB in memory
    const reopened = PartitionLog.open(dir, 't', 0, { ...DEFAULT_LOG_CONFIG, segmentBytes: 400_000 });
    try {
      for (const from of [0, 10, 30, 45, 55, 59]) {
        for (const maxBytes of [1, 100_000, 1 << 20]) {
          const live = await log.read(from, maxBytes);
          const fromFile = await reopened.read(from, maxBytes);
          expect(live.errorCode).toBe(ErrorCode.NONE);
          expect(Buffer.compare(live.records!, fromFile.records!)).toBe(0);
        }
      }
      expect(await values(log)).toEqual(await values(reopened));
      expect((await values(log, 58)).map((v) => v.split(':')[0])).toEqual(['58', '59']);
    } finally {
      reopened.close();
    }
  });

  test('the newest batches kept in memory do not keep alive the larger allocations they were views into', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const log = open();
    // As a produce request's batches are: views into the request's frame (a function's own scope, so no
    // variable of the test keeps the last frame).
    const appendViews = (): WeakRef<ArrayBufferLike>[] =>
      Array.from({ length: 20 }, (_, i) => {
        const frame = Buffer.alloc(256 * 1024);
        const stored = batch([`v${i}`]);
        stored.copy(frame, 100);
        append(log, frame.subarray(100, 100 + stored.length));
        return new WeakRef(frame.buffer);
      });
    const frames = appendViews();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(frames.filter((frame) => frame.deref() !== undefined)).toHaveLength(0);
    expect(await values(log)).toEqual(Array.from({ length: 20 }, (_, i) => `v${i}`));
    log.close();
  });
});
