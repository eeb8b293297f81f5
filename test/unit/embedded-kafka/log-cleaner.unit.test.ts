import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeRecords } from '../../../src/embedded/kafka/protocol/batch-records';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import { crc32c } from '../../../src/embedded/kafka/protocol/crc32c';
import { CRC_START, Compression, batchCrcValid, encodeRecordBatch, readBatchHeader, splitBatches } from '../../../src/embedded/kafka/protocol/record-batch';
import { DEFAULT_COMPACTION, compactionConfig, invalidCompactionConfig } from '../../../src/embedded/kafka/storage/compaction-config';
import { cleanPartition } from '../../../src/embedded/kafka/storage/log-cleaner';
import { DEFAULT_LOG_CONFIG } from '../../../src/embedded/kafka/storage/log-config';
import { PartitionLog } from '../../../src/embedded/kafka/storage/partition-log';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-cleaner-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** One batch per segment: every append rolls the segment before it. */
const open = (): PartitionLog => PartitionLog.open(dir, 't', 0, { ...DEFAULT_LOG_CONFIG, segmentBytes: 1 });
type Rec = [key: string | null, value: string | null, timestamp?: number];
function append(log: PartitionLog, records: Rec[], compression: 0 | 1 = Compression.NONE): void {
  const batch = encodeRecordBatch({ records: records.map(([key, value, timestamp]) => ({ key, value, timestamp })), compression });
  expect(log.append([batch]).errorCode).toBe(ErrorCode.NONE);
  log.advanceHighWatermark(log.logEndOffset);
}

/** Every record from the log start, read the way fetch reads: batch after batch, from the offset after the last. */
async function readAll(log: PartitionLog): Promise<[number, string | null, string | null][]> {
  const out: [number, string | null, string | null][] = [];
  let offset = log.logStartOffset;
  while (offset < log.highWatermark) {
    const { records, errorCode } = await log.read(offset, 1 << 20);
    expect(errorCode).toBe(ErrorCode.NONE);
    if (!records) break;
    for (const b of splitBatches(records)) {
      expect(batchCrcValid(b)).toBe(true);
      for (const r of decodeRecords(b)!) out.push([r.offset, r.key?.toString() ?? null, r.value?.toString() ?? null]);
      const h = readBatchHeader(b);
      offset = h.baseOffset + h.lastOffsetDelta + 1;
    }
  }
  return out;
}

const config = { ...DEFAULT_COMPACTION, minCleanableDirtyRatio: 0 };

describe('log cleaner', () => {
  test('keeps the last record of each key in closed segments, with its offset; the active segment stays whole', async () => {
    const log = open();
    append(log, [
      ['a', 'a1'],
      ['b', 'b1'],
      ['c', 'c1'],
    ]);
    append(log, [
      ['a', 'a2'],
      [null, 'no key'],
    ]);
    append(log, [['b', 'b2']], Compression.GZIP);
    append(log, [
      ['a', 'a3'],
      ['a', 'a4'],
    ]); // the active segment: not cleaned
    expect(await cleanPartition(log, config, Date.now())).toBe(1); // only the first segment holds superseded records
    expect(await readAll(log)).toEqual([
      [2, 'c', 'c1'],
      [3, 'a', 'a2'],
      [4, null, 'no key'],
      [5, 'b', 'b2'],
      [6, 'a', 'a3'],
      [7, 'a', 'a4'],
    ]);
    expect(log.logStartOffset).toBe(0);
    expect(log.highWatermark).toBe(8);
    // A fetch from an offset inside a gap gets the next batch that exists.
    const { records } = await log.read(0, 1 << 20);
    expect(readBatchHeader(records!).baseOffset).toBe(0);
    expect(decodeRecords(records!)!.map((r) => r.offset)).toEqual([2]);
    expect(await cleanPartition(log, config, Date.now())).toBe(0); // nothing dirty left
    log.close();
  });

  test('a batch with no record left goes; a segment with none left goes too, except the first (the log start)', async () => {
    const log = open();
    append(log, [['a', 'a1']]);
    append(log, [['b', 'b1']]);
    append(log, [
      ['a', 'a2'],
      ['b', 'b2'],
    ]);
    append(log, [['z', 'active']]);
    expect(await cleanPartition(log, config, Date.now())).toBe(2);
    expect(await readAll(log)).toEqual([
      [2, 'a', 'a2'],
      [3, 'b', 'b2'],
      [4, 'z', 'active'],
    ]);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.log'))).toHaveLength(3); // segment 1 deleted, segment 0 empty
    expect(log.logStartOffset).toBe(0);
    log.close();
  });

  test('tombstones stay for delete.retention.ms, then go', async () => {
    const log = open();
    const now = Date.now();
    append(log, [
      ['a', 'a1'],
      ['b', 'b1'],
    ]);
    append(log, [
      ['a', null, now - 5_000],
      ['b', null, now],
    ]);
    append(log, [['z', 'active']]);
    await cleanPartition(log, { ...config, deleteRetentionMs: 60_000 }, now);
    expect(await readAll(log)).toEqual([
      [2, 'a', null],
      [3, 'b', null],
      [4, 'z', 'active'],
    ]);
    append(log, [['y', 'next active']]); // new dirty bytes: the next pass runs
    await cleanPartition(log, { ...config, deleteRetentionMs: 1_000 }, now);
    expect(await readAll(log)).toEqual([
      [3, 'b', null],
      [4, 'z', 'active'],
      [5, 'y', 'next active'],
    ]);
    log.close();
  });

  test('nothing is cleaned below min.cleanable.dirty.ratio of the closed segments', async () => {
    const log = open();
    append(log, [['a', 'a1']]);
    append(log, [['a', 'a2']]);
    append(log, [['z', 'active']]);
    expect(await cleanPartition(log, { ...config, minCleanableDirtyRatio: 1 }, Date.now())).toBe(1); // all dirty: 1 ≥ 1
    append(log, [['a', 'a3']]);
    // Closed now: a cleaned segment pair plus two new ones, half of the bytes dirty.
    expect(await cleanPartition(log, { ...config, minCleanableDirtyRatio: 0.99 }, Date.now())).toBe(0);
    log.close();
  });

  test('the cleaned log survives a restart; a cleaned copy left by a crash before its swap is dropped, the old segment kept', async () => {
    let log = open();
    append(log, [['a', 'a1']]);
    append(log, [
      ['a', 'a2'],
      ['b', 'b1'],
    ]);
    append(log, [['z', 'active']]);
    await cleanPartition(log, config, Date.now());
    log.close();
    fs.writeFileSync(path.join(dir, `${String(1).padStart(20, '0')}.log.cleaned`), 'half written');
    log = open();
    expect(fs.readdirSync(dir).some((f) => f.endsWith('.cleaned'))).toBe(false);
    expect(await readAll(log)).toEqual([
      [1, 'a', 'a2'],
      [2, 'b', 'b1'],
      [3, 'z', 'active'],
    ]);
    expect(log.logEndOffset).toBe(4);
    log.close();
  });

  test('compact,delete: a first segment the cleaner emptied does not hold back time retention', async () => {
    const log = PartitionLog.open(dir, 't', 0, { ...DEFAULT_LOG_CONFIG, segmentBytes: 1, retentionMs: 60_000 });
    const old = Date.now() - 120_000;
    append(log, [['a', 'a1', old]]);
    append(log, [['a', 'a2', old]]);
    append(log, [['z', 'active']]);
    await cleanPartition(log, config, Date.now());
    expect(log.logStartOffset).toBe(0);
    expect(log.enforceRetention(Date.now())).toBe(2);
    expect(log.logStartOffset).toBe(2);
    expect(await readAll(log)).toEqual([[2, 'z', 'active']]);
    log.close();
  });

  test('appends and reads go on while a partition is cleaned; what they wrote and read is whole', async () => {
    const log = open();
    for (let i = 0; i < 40; i++) append(log, [[`k${i % 4}`, `old-${i}`]]);
    const cleaning = cleanPartition(log, config, Date.now());
    const readsDuringCleaning: Promise<unknown>[] = [];
    for (let i = 0; i < 8; i++) {
      append(log, [[`k${i % 4}`, `new-${i}`]]); // rolls: every append closes the segment before it
      readsDuringCleaning.push(readAll(log));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all([cleaning, ...readsDuringCleaning]);
    const after = await readAll(log);
    expect(after.slice(-8).map(([offset, , value]) => [offset, value])).toEqual(Array.from({ length: 8 }, (_, i) => [40 + i, `new-${i}`]));
    expect(after.filter(([offset]) => offset < 40).map(([, , value]) => value)).toEqual(['old-35', 'old-36', 'old-37', 'old-38', 'old-39']);
    expect(log.logStartOffset).toBe(0);
    log.close();
  });

  test('nothing past the last stable offset is cleaned: an open transaction holds the cleaner back, as in Kafka', async () => {
    const log = open();
    append(log, [['a', 'a1']]);
    const txn = encodeRecordBatch({ records: [{ key: 'x', value: 'in txn' }], producerId: 7, producerEpoch: 0, baseSequence: 0 });
    txn.writeInt16BE(txn.readInt16BE(21) | 0x10, 21); // transactional
    txn.writeUInt32BE(crc32c(txn, CRC_START), 17);
    expect(log.append([txn]).errorCode).toBe(ErrorCode.NONE);
    log.advanceHighWatermark(log.logEndOffset);
    append(log, [['a', 'a2']]);
    append(log, [['z', 'active']]);
    expect(log.lastStableOffset).toBe(1);
    expect(await cleanPartition(log, config, Date.now())).toBe(0);
    expect((await readAll(log))[0]).toEqual([0, 'a', 'a1']);
    log.close();
  });

  test('configs: compact and compact,delete are compacted; ratio and delete retention are checked', () => {
    expect(compactionConfig({ 'cleanup.policy': 'delete' })).toBeNull();
    expect(compactionConfig({ 'cleanup.policy': 'compact,delete', 'min.cleanable.dirty.ratio': '0.1', 'delete.retention.ms': '5' })).toEqual({
      minCleanableDirtyRatio: 0.1,
      deleteRetentionMs: 5,
    });
    expect(invalidCompactionConfig({ 'min.cleanable.dirty.ratio': '1.5' })).toBe('min.cleanable.dirty.ratio');
    expect(invalidCompactionConfig({ 'delete.retention.ms': '-1' })).toBe('delete.retention.ms');
  });
});
