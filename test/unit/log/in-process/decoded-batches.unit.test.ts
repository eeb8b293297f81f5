import type { PartitionLog } from '../../../../src/embedded/kafka/storage/partition-log';
import { DecodedBatches, type DecodedStoredBatch } from '../../../../src/log/in-process/decoded-batches';
import type { LogRecord } from '../../../../src/log/port';

/** The cache only keys on the log object's identity; any object stands for a partition log here. */
const aLog = (): PartitionLog => ({}) as PartitionLog;

const batchOf = (base: number, size: number): DecodedStoredBatch => ({
  lastOffset: base + size - 1,
  records: Array.from({ length: size }, (_, i): LogRecord<unknown> => ({
    topic: 't',
    partition: 0,
    offset: String(base + i),
    key: null,
    value: { n: base + i },
    headers: {},
    timestamp: 0,
    schemaId: 1,
  })),
  rejections: [],
});

describe('decoded batches shared by the readers of a partition', () => {
  test('a batch is found by log, reader schema and base offset, and only with the same last offset', () => {
    const cache = new DecodedBatches();
    const [log, other] = [aLog(), aLog()];
    const batch = batchOf(0, 10);
    cache.put(log, undefined, 0, batch);
    expect(cache.get(log, undefined, 0, 9)).toBe(batch);
    expect(cache.get(log, undefined, 0, 8)).toBeUndefined();
    expect(cache.get(other, undefined, 0, 9)).toBeUndefined();
  });

  test('it keeps at most about 4096 records, dropping the batches stored longest ago', () => {
    const cache = new DecodedBatches();
    const log = aLog();
    for (let b = 0; b < 100; b++) cache.put(log, undefined, b * 100, batchOf(b * 100, 100));
    const kept = Array.from({ length: 100 }, (_, b) => cache.get(log, undefined, b * 100, b * 100 + 99) !== undefined);
    expect(kept.filter(Boolean)).toHaveLength(40);
    expect(kept.slice(60).every(Boolean)).toBe(true);
    expect(kept.slice(0, 60).some(Boolean)).toBe(false);
  });
});
