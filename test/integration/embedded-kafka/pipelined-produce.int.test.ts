import { encodeRecordBatch } from '../../../src/embedded/kafka/protocol/record-batch';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import type { PartitionLog } from '../../../src/embedded/kafka/storage/partition-log';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { type TestBroker, startTestBroker } from './harness';
import { RawClient } from './raw-client';

const PRODUCE = 0;
const LIST_OFFSETS = 2;
const TOPIC = 'pipelined';

/** A Produce v3 body: acks=-1, one batch of `values` for partition 0 of TOPIC. */
const produceBody = (values: string[]): Buffer =>
  new Writer()
    .nullableString(null)
    .int16(-1)
    .int32(10_000)
    .array([TOPIC], (w, name) => w.string(name).array([0], (w, p) => w.int32(p).bytes(encodeRecordBatch({ records: values.map((value) => ({ value })) }))))
    .toBuffer();

/** Correlation id, error code and base offset of a Produce v3 answer for one partition. */
function readProduce(answer: Buffer): { correlationId: number; errorCode: number; baseOffset: number } {
  const r = new Reader(answer);
  const correlationId = r.int32();
  const [partition] =
    r.array((r) => (r.string(), r.array((r) => ({ index: r.int32(), errorCode: r.int16(), baseOffset: r.int64(), logAppendTimeMs: r.int64() }))))[0] ?? [];
  return { correlationId, errorCode: partition?.errorCode ?? -1, baseOffset: partition?.baseOffset ?? -1 };
}

/**
 * Counts the partition's fsyncs, holding the first until `records` are appended, as a slow disk would hold it: the
 * produces that arrive meanwhile must share the next fsync rather than each take one. Without the hold, a busy
 * machine can deliver the requests one fsync apart, and each would rightly get an fsync of its own.
 */
function holdFirstSyncUntil(log: PartitionLog, records: number): jest.SpiedFunction<PartitionLog['sync']> {
  const realSync = log.sync.bind(log);
  return jest.spyOn(log, 'sync').mockImplementationOnce(async () => {
    while (log.logEndOffset < records) await new Promise((resolve) => setTimeout(resolve, 5));
    await realSync();
  });
}

describe('embedded kafka: produces in flight on one connection', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
    broker.kafka.parts.logs.createTopic(TOPIC, 1);
  });
  afterAll(() => broker.stop());

  test('are appended in order and answered in order once durable, sharing fsyncs; a request behind them sees them all', async () => {
    const log = broker.kafka.parts.logs.partition(TOPIC, 0)!;
    const sends = 8;
    const syncs = holdFirstSyncUntil(log, 2 * sends);
    const c = await RawClient.connect(broker.kafka.port);
    // Written back to back before any answer: the broker must not wait for one fsync per request.
    const answers = Array.from({ length: sends }, (_, i) => c.request(PRODUCE, 3, 100 + i, produceBody([`a${i}`, `b${i}`])));
    const latest = c.request(
      LIST_OFFSETS,
      1,
      999,
      new Writer()
        .int32(-1)
        .array([TOPIC], (w, name) => w.string(name).array([0], (w, p) => w.int32(p).int64(-1)))
        .toBuffer(),
    );
    const produced = (await Promise.all(answers)).map(readProduce);
    expect(produced).toEqual(Array.from({ length: sends }, (_, i) => ({ correlationId: 100 + i, errorCode: 0, baseOffset: 2 * i })));
    expect(syncs.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(syncs.mock.calls.length).toBeLessThan(sends);
    // ListOffsets came after the produces on the same connection: it is answered after them and sees them durable.
    const offsets = new Reader(await latest);
    expect(offsets.int32()).toBe(999);
    const [partition] =
      offsets.array((r) => (r.string(), r.array((r) => ({ index: r.int32(), errorCode: r.int16(), timestamp: r.int64(), offset: r.int64() }))))[0] ?? [];
    expect(partition).toMatchObject({ errorCode: 0, offset: 2 * sends });
    expect(log.highWatermark).toBe(2 * sends);
    c.close();
  });
});

describe('embedded kafka: produces from several connections at once', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
    broker.kafka.parts.logs.createTopic(TOPIC, 1);
  });
  afterAll(() => broker.stop());

  test('share group commits: fewer fsyncs than produces, each answered once durable with its own offsets', async () => {
    const log = broker.kafka.parts.logs.partition(TOPIC, 0)!;
    const connections = 8;
    const syncs = holdFirstSyncUntil(log, 2 * connections);
    const clients = await Promise.all(Array.from({ length: connections }, () => RawClient.connect(broker.kafka.port)));
    const produced = (await Promise.all(clients.map((c, i) => c.request(PRODUCE, 3, 200 + i, produceBody([`x${i}`, `y${i}`]))))).map(readProduce);
    expect(produced.map((p) => p.errorCode)).toEqual(Array.from({ length: connections }, () => 0));
    // Each got two offsets of its own; together they cover 0 … 2 × connections - 1 once.
    expect(produced.map((p) => p.baseOffset).sort((a, b) => a - b)).toEqual(Array.from({ length: connections }, (_, i) => 2 * i));
    expect(log.highWatermark).toBe(2 * connections);
    expect(syncs.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(syncs.mock.calls.length).toBeLessThan(connections);
    for (const c of clients) c.close();
  });
});
