import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assignBaseOffset, encodeRecordBatch, readBatchHeader } from '../../../src/embedded/kafka/protocol/record-batch';
import { Segment, segmentFileName } from '../../../src/embedded/kafka/storage/segment';
import { SegmentIndex } from '../../../src/embedded/kafka/storage/segment-index';

/** A stored batch as the test expects to read it back. */
interface Stored {
  base: number;
  last: number;
  maxTimestamp: number;
  bytes: Buffer;
}

const BASE = 1000;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-segment-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Deterministic pseudo-random integers in [0, n). */
function prng(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

/**
 * Batches of 1–4 records of varied sizes, with gaps between them (as a compaction leaves) and timestamps that do
 * not only grow, appended to a new segment.
 */
function filledSegment(interval: number, count = 150): { segment: Segment; stored: Stored[] } {
  const rand = prng(interval + 7);
  const segment = Segment.create(dir, BASE, interval);
  const stored: Stored[] = [];
  let next = BASE;
  for (let i = 0; i < count; i++) {
    const base = next + (i === 0 ? 0 : rand(3));
    const records = Array.from({ length: 1 + rand(4) }, (_, r) => ({
      value: `b${i}r${r}`.padEnd(10 + rand(400), '.'),
      timestamp: 1_000_000 + i * 10 - rand(50),
    }));
    const bytes = encodeRecordBatch({ records });
    assignBaseOffset(bytes, base);
    const h = readBatchHeader(bytes);
    segment.append(bytes, base, base + h.lastOffsetDelta, h.maxTimestamp);
    stored.push({ base, last: base + h.lastOffsetDelta, maxTimestamp: h.maxTimestamp, bytes });
    next = base + h.lastOffsetDelta + 1;
  }
  return { segment, stored };
}

/** What a read should return, from the list of stored batches. */
function expectedRead(stored: Stored[], offset: number, limit: number, maxBytes: number): Buffer | null {
  const first = stored.findIndex((b) => b.last >= offset);
  if (stored[first]!.last >= limit) return null;
  const parts = [stored[first]!.bytes];
  let bytes = parts[0]!.length;
  for (let k = first + 1; k < stored.length && stored[k]!.last < limit && bytes + stored[k]!.bytes.length <= maxBytes; k++) {
    parts.push(stored[k]!.bytes);
    bytes += stored[k]!.bytes.length;
  }
  return Buffer.concat(parts);
}

async function expectReadsMatch(segment: Segment, stored: Stored[]): Promise<void> {
  const end = stored.at(-1)!.last + 1;
  const limits = [end, stored[stored.length >> 1]!.last];
  for (let offset = BASE; offset < end; offset++) {
    for (const limit of limits) {
      for (const maxBytes of [1, 700, 1 << 20]) {
        const got = await segment.read(offset, limit, maxBytes);
        const want = expectedRead(stored, offset, limit, maxBytes);
        if (want === null) expect(got).toBeNull();
        else expect({ offset, limit, maxBytes, equal: got !== null && got.equals(want) }).toEqual({ offset, limit, maxBytes, equal: true });
      }
    }
  }
  for (const ts of stored.flatMap((b) => [b.maxTimestamp - 1, b.maxTimestamp, b.maxTimestamp + 1])) {
    const want = stored.find((b) => b.maxTimestamp >= ts);
    const got = await segment.firstBatchAtOrAfter(ts);
    expect({ ts, equal: want ? got?.equals(want.bytes) : got === undefined }).toEqual({ ts, equal: true });
  }
  const all: Buffer[] = [];
  for await (const b of segment.batches()) all.push(Buffer.from(b));
  expect(Buffer.concat(all).equals(Buffer.concat(stored.map((b) => b.bytes)))).toBe(true);
  expect(segment.nextOffset).toBe(end);
}

const indexFile = (): string => path.join(dir, segmentFileName(BASE, 'index'));

describe('segment with a sparse index', () => {
  test.each([0, 300, 4096])(
    'reads every offset, timestamp and batch alike from memory, from the file, from a loaded index and from a scan (index.interval.bytes %i)',
    async (interval) => {
      const { segment, stored } = filledSegment(interval);
      await expectReadsMatch(segment, stored);
      segment.releaseRecent();
      await expectReadsMatch(segment, stored);
      segment.close();

      // One entry per interval of log (one per batch at 0), as the file written at close shows.
      const entries = (fs.statSync(indexFile()).size - 16) / 16;
      const logBytes = stored.reduce((n, b) => n + b.bytes.length, 0);
      if (interval === 0) expect(entries).toBe(stored.length);
      else {
        expect(entries).toBeLessThanOrEqual(Math.ceil(logBytes / interval) + 1);
        expect(entries).toBeGreaterThanOrEqual(Math.floor(logBytes / (interval + 500)));
      }

      for (const verify of [false, true]) {
        const reopened = Segment.open(dir, BASE, interval, verify);
        expect(reopened.size).toBe(logBytes);
        expect(reopened.maxTimestamp).toBe(Math.max(...stored.map((b) => b.maxTimestamp)));
        await expectReadsMatch(reopened, stored);
        reopened.close();
      }
    },
  );

  test('an index file that is torn, altered or of another format is rebuilt from the log', async () => {
    const { segment, stored } = filledSegment(300, 60);
    segment.close();
    const good = fs.readFileSync(indexFile());
    const altered = Buffer.from(good);
    altered[40]! ^= 0x01;
    const oldFormat = Buffer.alloc(60 * 20, 0);
    for (const bad of [good.subarray(0, good.length - 16), good.subarray(0, good.length - 3), altered, oldFormat, Buffer.alloc(0)]) {
      fs.writeFileSync(indexFile(), bad);
      const reopened = Segment.open(dir, BASE, 300, false);
      await expectReadsMatch(reopened, stored);
      reopened.close();
      expect(fs.readFileSync(indexFile()).equals(good)).toBe(true);
    }
  });

  test('an index whose last batch no longer ends the log (the log grew after it was written) is rebuilt', async () => {
    const { segment, stored } = filledSegment(300, 40);
    segment.close();
    const stale = fs.readFileSync(indexFile());
    const more = Segment.open(dir, BASE, 300, true);
    const extra = encodeRecordBatch({ records: [{ value: 'late', timestamp: 5 }] });
    const base = stored.at(-1)!.last + 1;
    assignBaseOffset(extra, base);
    more.append(extra, base, base, 5);
    more.close();
    fs.writeFileSync(indexFile(), stale);
    const reopened = Segment.open(dir, BASE, 300, false);
    await expectReadsMatch(reopened, [...stored, { base, last: base, maxTimestamp: 5, bytes: extra }]);
    reopened.close();
  });
});

describe('segment index codec', () => {
  test('round-trips entries and the log tail; refuses entries out of order', () => {
    const index = new SegmentIndex(2 ** 40);
    index.push(2 ** 40, 0, 7);
    index.push(2 ** 40 + 10, 4100, -1);
    index.raiseLastTimestamp(99);
    const bytes = index.encode({ lastBatchPosition: 8000, lastOffset: 2 ** 40 + 30 });
    expect(bytes.length).toBe(16 + 2 * 16);
    const back = new SegmentIndex(2 ** 40);
    expect(back.decode(bytes)).toEqual({ lastBatchPosition: 8000, lastOffset: 2 ** 40 + 30 });
    expect([back.length, back.base(1), back.position(1), back.maxTimestamp(0), back.maxTimestamp(1)]).toEqual([2, 2 ** 40 + 10, 4100, 7, 99]);
    expect([back.floor(2 ** 40 + 9), back.floor(2 ** 40 + 10), back.floor(0), back.firstAtOrAfter(8), back.firstAtOrAfter(100)]).toEqual([0, 1, 0, 1, -1]);

    const unordered = new SegmentIndex(0);
    unordered.push(0, 0, 1);
    unordered.push(5, 0, 1);
    const refused = new SegmentIndex(0);
    expect(refused.decode(unordered.encode({ lastBatchPosition: 10, lastOffset: 9 }))).toBeUndefined();
    expect(refused.length).toBe(0);
    expect(new SegmentIndex(0).encode({ lastBatchPosition: -1, lastOffset: -1 }).length).toBe(0);
  });
});
