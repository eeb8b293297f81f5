import { BatchIndex } from '../../../src/embedded/kafka/storage/batch-index';
import { applyTopicConfigs, DEFAULT_LOG_CONFIG } from '../../../src/embedded/kafka/storage/log-config';

describe('a segment’s batch index', () => {
  test('keeps every batch through its growth, offsets beyond 32 bits of a segment based there', () => {
    const base = 5_000_000_000;
    const index = new BatchIndex(base);
    const n = 10_000;
    for (let i = 0; i < n; i++) index.push(base + 3 * i, base + 3 * i + 2, 100 * i, i % 7 === 0 ? -1 : 1_765_000_000_000 + i);
    expect(index.length).toBe(n);
    const wrong = [];
    for (let i = 0; i < n; i++) {
      const batch = [index.base(i), index.last(i), index.position(i), index.maxTimestamp(i)];
      const expected = [base + 3 * i, base + 3 * i + 2, 100 * i, i % 7 === 0 ? -1 : 1_765_000_000_000 + i];
      if (batch.some((v, k) => v !== expected[k])) wrong.push({ i, batch, expected });
    }
    expect(wrong).toEqual([]);
  });

  test('forgets its batches when cleared and takes new ones from the start', () => {
    const index = new BatchIndex(10);
    for (let i = 0; i < 100; i++) index.push(10 + i, 10 + i, i * 61, i);
    index.clear();
    expect(index.length).toBe(0);
    index.push(10, 14, 0, 42);
    expect([index.length, index.base(0), index.last(0), index.position(0), index.maxTimestamp(0)]).toEqual([1, 10, 14, 0, 42]);
  });
});

describe('segment.bytes', () => {
  test('is refused beyond a 32-bit integer, as Kafka’s INT config is, since segment positions are stored in 32 bits', () => {
    expect(applyTopicConfigs(DEFAULT_LOG_CONFIG, { 'segment.bytes': String(2 ** 31) }).invalid).toBe('segment.bytes');
    expect(applyTopicConfigs(DEFAULT_LOG_CONFIG, { 'segment.bytes': String(2 ** 31 - 1) })).toEqual({
      config: { ...DEFAULT_LOG_CONFIG, segmentBytes: 2 ** 31 - 1 },
    });
  });
});
