import { settledBeyondEnd } from '../../../src/log';
import type { TopicOffsets } from '../../../src/log/port';

/** A partition whose high watermark is read from `highs` one read at a time (the last one repeats). */
function partitionEnds(highs: number[], endSettleMs: number) {
  let reads = 0;
  return {
    endSettleMs,
    get reads() {
      return reads;
    },
    topicOffsets: async (): Promise<TopicOffsets[]> => {
      const high = highs[Math.min(reads++, highs.length - 1)] as number;
      return [
        { partition: 0, low: '0', high: '100' },
        { partition: 1, low: '0', high: String(high) },
      ];
    },
  };
}

describe('settledBeyondEnd', () => {
  test('a position within the end is held at the first read', async () => {
    const ends = partitionEnds([120], 10_000);
    await expect(settledBeyondEnd(ends, 't', 1, 120n)).resolves.toBeUndefined();
    expect(ends.reads).toBe(1);
  });

  test('an end that trails (a new leader) and catches up within the settle time is no loss', async () => {
    const ends = partitionEnds([113, 113, 120], 5_000);
    await expect(settledBeyondEnd(ends, 't', 1, 118n)).resolves.toBeUndefined();
    expect(ends.reads).toBe(3);
  });

  test('a position that stays beyond the end for the settle time answers the last offsets read', async () => {
    const ends = partitionEnds([5], 1_200);
    const started = Date.now();
    await expect(settledBeyondEnd(ends, 't', 1, 118n)).resolves.toEqual({ partition: 1, low: '0', high: '5' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    expect(ends.reads).toBeGreaterThan(1);
  });

  test('with no settle time (one node) a position beyond the end is lost at once', async () => {
    const ends = partitionEnds([5, 200], 0);
    await expect(settledBeyondEnd(ends, 't', 1, 118n)).resolves.toEqual({ partition: 1, low: '0', high: '5' });
    expect(ends.reads).toBe(1);
  });

  test('a partition the topic does not list is not called lost', async () => {
    await expect(settledBeyondEnd(partitionEnds([5], 0), 't', 7, 118n)).resolves.toBeUndefined();
  });
});
