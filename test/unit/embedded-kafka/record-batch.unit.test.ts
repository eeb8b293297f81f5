import {
  Compression,
  assignBaseOffset,
  batchCrcValid,
  encodeRecordBatch,
  readBatchHeader,
  splitBatches,
} from '../../../src/embedded/kafka/protocol/record-batch';
import { decodeRecords } from '../../../src/embedded/kafka/protocol/batch-records';
import { MalformedFrameError } from '../../../src/embedded/kafka/protocol/errors';

const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (args: object) => Promise<{ buffer: Buffer }>;
};
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (args: object) => unknown;
const { Types } = require('kafkajs/src/protocol/message/compression') as { Types: { GZIP: number } };

async function kafkajsBatch(compression = 0): Promise<Buffer> {
  const records = [
    Record({ offsetDelta: 0, timestampDelta: 0, key: Buffer.from('k1'), value: Buffer.from('v1'), headers: { h: Buffer.from('x') } }),
    Record({ offsetDelta: 1, timestampDelta: 5, key: null, value: Buffer.from('v2') }),
  ];
  const encoded = await RecordBatch({
    compression,
    firstTimestamp: 1700000000000,
    maxTimestamp: 1700000000005,
    producerId: 11,
    producerEpoch: 2,
    firstSequence: 40,
    records,
    lastOffsetDelta: 1,
  });
  return encoded.buffer;
}

describe('record batch v2', () => {
  test.each([
    ['uncompressed', 0],
    ['gzip', 1],
  ])('a kafkajs-built %s batch: header, CRC-32C and records', async (_, compression) => {
    const batch = await kafkajsBatch(compression === 1 ? Types.GZIP : 0);
    const h = readBatchHeader(batch);
    expect(h).toMatchObject({ magic: 2, lastOffsetDelta: 1, recordCount: 2, producerId: 11, producerEpoch: 2, baseSequence: 40, size: batch.length });
    expect(h.attributes & 0x07).toBe(compression);
    expect(batchCrcValid(batch)).toBe(true);
    expect(decodeRecords(batch)).toEqual([
      { offset: 0, timestamp: 1700000000000, key: Buffer.from('k1'), value: Buffer.from('v1'), headers: [{ key: 'h', value: Buffer.from('x') }] },
      { offset: 1, timestamp: 1700000000005, key: null, value: Buffer.from('v2'), headers: [] },
    ]);
  });

  test('our encoder writes the bytes kafkajs writes for the same records (keys, null values, headers, big values, timestamps)', async () => {
    const big = Buffer.alloc(300, 7); // a body length needing a two-byte varint
    const encoded = encodeRecordBatch({
      records: [
        { key: 'k1', value: 'v1', timestamp: 1700000000000, headers: { h: 'x', trace: Buffer.from('abc') } },
        { key: null, value: null, timestamp: 1700000000005 },
        { key: Buffer.from('k3'), value: big, timestamp: 1700000000002 },
      ],
      producerId: 11,
      producerEpoch: 2,
      baseSequence: 40,
    });
    const theirs = await RecordBatch({
      compression: 0,
      firstTimestamp: 1700000000000,
      maxTimestamp: 1700000000005,
      producerId: 11,
      producerEpoch: 2,
      firstSequence: 40,
      lastOffsetDelta: 2,
      records: [
        Record({
          offsetDelta: 0,
          timestampDelta: 0,
          key: Buffer.from('k1'),
          value: Buffer.from('v1'),
          headers: { h: Buffer.from('x'), trace: Buffer.from('abc') },
        }),
        Record({ offsetDelta: 1, timestampDelta: 5, key: null, value: null }),
        Record({ offsetDelta: 2, timestampDelta: 2, key: Buffer.from('k3'), value: big }),
      ],
    });
    expect(encoded.toString('hex')).toBe(theirs.buffer.toString('hex'));
    expect(batchCrcValid(encoded)).toBe(true);
  });

  test('text keys, values and headers are written as their UTF-8 bytes (multi-byte characters measured in bytes)', () => {
    const text = encodeRecordBatch({ records: [{ key: 'clé-€', value: 'vä', timestamp: 1700000000000, headers: { naïve: 'ŝ€', plain: 'x' } }] });
    const bytes = encodeRecordBatch({
      records: [
        {
          key: Buffer.from('clé-€'),
          value: Buffer.from('vä'),
          timestamp: 1700000000000,
          headers: { naïve: Buffer.from('ŝ€'), plain: Buffer.from('x') },
        },
      ],
    });
    expect(text.toString('hex')).toBe(bytes.toString('hex'));
    expect(decodeRecords(text)).toEqual([
      {
        offset: 0,
        timestamp: 1700000000000,
        key: Buffer.from('clé-€'),
        value: Buffer.from('vä'),
        headers: [
          { key: 'naïve', value: Buffer.from('ŝ€') },
          { key: 'plain', value: Buffer.from('x') },
        ],
      },
    ]);
  });

  test('the broker may rewrite baseOffset and leader epoch without touching the CRC', () => {
    const batch = encodeRecordBatch({ records: [{ value: 'a' }, { value: 'b' }], compression: Compression.GZIP });
    assignBaseOffset(batch, 2 ** 33 + 7, 3);
    expect(batchCrcValid(batch)).toBe(true);
    expect(readBatchHeader(batch)).toMatchObject({ baseOffset: 2 ** 33 + 7, partitionLeaderEpoch: 3 });
    expect(decodeRecords(batch)!.map((r) => r.offset)).toEqual([2 ** 33 + 7, 2 ** 33 + 8]);
  });

  test('a flipped bit in the records fails the CRC', () => {
    const batch = encodeRecordBatch({ records: [{ value: 'payload' }] });
    batch[batch.length - 3]! ^= 0x01;
    expect(batchCrcValid(batch)).toBe(false);
  });

  test('a record set holding several batches is split; bad framing is refused', () => {
    const a = encodeRecordBatch({ records: [{ value: 'a' }] });
    const b = encodeRecordBatch({ records: [{ value: 'b' }, { value: 'c' }] });
    expect(splitBatches(Buffer.concat([a, b])).map((x) => x.length)).toEqual([a.length, b.length]);
    expect(() => splitBatches(Buffer.concat([a, b.subarray(0, 30)]))).toThrow(MalformedFrameError);
    const lying = Buffer.from(a);
    lying.writeInt32BE(10_000, 8);
    expect(() => splitBatches(lying)).toThrow(MalformedFrameError);
  });

  test('codecs the broker does not decode (snappy, lz4, zstd) yield null, not an error', () => {
    const batch = encodeRecordBatch({ records: [{ value: 'a' }] });
    batch.writeInt16BE(Compression.ZSTD, 21);
    expect(decodeRecords(batch)).toBeNull();
  });
});
