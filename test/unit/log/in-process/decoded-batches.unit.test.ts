import type { PartitionLog } from '../../../../src/embedded/kafka/storage/partition-log';
import { DecodedBatches, type DecodedStoredBatch } from '../../../../src/log/in-process/decoded-batches';
import type { LogRecord } from '../../../../src/log/port';

/** The cache only keys on the log object's identity; any object stands for a partition log here. */
const aLog = (topic = 't'): PartitionLog => ({ topic }) as PartitionLog;

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
  /** A cache with `n` subscriptions reading topic t. */
  const withReaders = (n: number): DecodedBatches => {
    const cache = new DecodedBatches();
    for (let i = 0; i < n; i++) cache.addReader(['t'], undefined);
    return cache;
  };

  test('a batch is found by log, reader schema and base offset, and only with the same last offset', () => {
    const cache = withReaders(3);
    const [log, other] = [aLog(), aLog()];
    const batch = batchOf(0, 10);
    cache.put(log, undefined, 0, batch);
    expect(cache.get(log, undefined, 0, 8)).toBeUndefined();
    expect(cache.get(other, undefined, 0, 9)).toBeUndefined();
    expect(cache.get(log, undefined, 0, 9)).toBe(batch);
  });

  test('a batch stays until every other reader of its topic took it', () => {
    const cache = withReaders(3);
    const log = aLog();
    const batch = batchOf(0, 10);
    cache.put(log, undefined, 0, batch);
    expect(cache.get(log, undefined, 0, 9)).toBe(batch);
    expect(cache.get(log, undefined, 0, 9)).toBe(batch);
    expect(cache.get(log, undefined, 0, 9)).toBeUndefined();
  });

  test('batches of a topic (and reader schema) only one subscription reads are not kept', () => {
    const cache = withReaders(1);
    cache.addReader(['other'], undefined);
    const leave = cache.addReader(['t'], undefined);
    leave();
    leave();
    cache.put(aLog(), undefined, 0, batchOf(0, 10));
    cache.put(aLog('other'), undefined, 0, batchOf(0, 10));
    const log = aLog();
    cache.put(log, undefined, 0, batchOf(0, 10));
    expect(cache.get(log, undefined, 0, 9)).toBeUndefined();
  });

  test('it keeps at most about 4096 records, dropping the batches stored longest ago', () => {
    const cache = withReaders(2);
    const log = aLog();
    for (let b = 0; b < 100; b++) cache.put(log, undefined, b * 100, batchOf(b * 100, 100));
    const kept = Array.from({ length: 100 }, (_, b) => cache.get(log, undefined, b * 100, b * 100 + 99) !== undefined);
    expect(kept.filter(Boolean)).toHaveLength(40);
    expect(kept.slice(60).every(Boolean)).toBe(true);
    expect(kept.slice(0, 60).some(Boolean)).toBe(false);
  });
});
