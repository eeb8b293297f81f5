import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { type TestBroker, startTestBroker } from './harness';
import { RawClient } from './raw-client';

const API_VERSIONS = 18;
const METADATA = 3;
const UNSUPPORTED_VERSION = 35;

function readApiVersions(body: Buffer): { errorCode: number; keys: Map<number, [number, number]> } {
  const r = new Reader(body, 4); // after the correlation id
  const errorCode = r.int16();
  const keys = new Map<number, [number, number]>();
  for (const k of r.array((r) => [r.int16(), r.int16(), r.int16()] as const)) keys.set(k[0], [k[1], k[2]]);
  return { errorCode, keys };
}

describe('embedded kafka: unsupported requests and malformed frames', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ maxFrameBytes: 1024 * 1024 });
  });
  afterAll(() => broker.stop());

  test('ApiVersions v3 (flexible, as librdkafka opens) is served; a newer version gets UNSUPPORTED_VERSION with our ranges and the connection stays usable', async () => {
    const c = await RawClient.connect(broker.kafka.port);
    const software = new Writer().compactString('raw-test').compactString('1.0').uvarint(0).toBuffer();
    const v3 = new Reader(await c.request(API_VERSIONS, 3, 7, software, true), 4);
    expect(v3.int16()).toBe(0);
    const ranges = new Map(
      v3.compactArray((r) => {
        const k = [r.int16(), [r.int16(), r.int16()]] as const;
        r.skipTaggedFields();
        return k;
      }),
    );
    expect(ranges.get(API_VERSIONS)).toEqual([0, 3]);
    const v4 = await c.request(API_VERSIONS, 4, 8, software, true);
    expect(v4.readInt32BE(0)).toBe(8);
    const refused = readApiVersions(v4);
    expect(refused.errorCode).toBe(UNSUPPORTED_VERSION);
    expect(refused.keys.get(API_VERSIONS)).toEqual([0, 3]);
    expect(refused.keys.get(0)).toEqual([3, 7]);
    const ok = readApiVersions(await c.request(API_VERSIONS, 0, 9));
    expect(ok.errorCode).toBe(0);
    expect(ok.keys.size).toBe(ranges.size);
    c.close();
  });

  test('an unknown API key or a version outside the range closes the connection unanswered, as Kafka does', async () => {
    for (const [apiKey, version] of [
      [9999, 0],
      [METADATA, 12],
      [0, 2],
    ] as const) {
      const c = await RawClient.connect(broker.kafka.port);
      const answered = c.request(apiKey, version, 11).then(() => 'answered');
      await expect(Promise.race([answered, c.closed.then(() => 'closed')])).resolves.toBe('closed');
    }
    const c = await RawClient.connect(broker.kafka.port);
    const meta = await c.request(METADATA, 1, 13, new Writer().int32(0).toBuffer()); // no topics
    expect(meta.readInt32BE(0)).toBe(13);
    expect(new Reader(meta, 4).int32()).toBe(1); // one broker
    c.close();
  });

  test('a malformed frame closes only its own connection', async () => {
    const healthy = await RawClient.connect(broker.kafka.port);
    const bad = await RawClient.connect(broker.kafka.port);
    // A Metadata v1 request whose topic array claims 1000 entries in 2 bytes.
    await expect(Promise.race([bad.request(METADATA, 1, 1, Buffer.from([0, 0, 0x03, 0xe8, 0, 1])), bad.closed.then(() => 'closed')])).resolves.toBe('closed');
    const tiny = await RawClient.connect(broker.kafka.port);
    tiny.writeRaw(Buffer.from([0, 0, 0, 2, 1, 2])); // a frame shorter than any request header
    await tiny.closed;
    const huge = await RawClient.connect(broker.kafka.port);
    huge.writeRaw(Buffer.from([0x10, 0, 0, 0])); // 256 MiB: over the limit
    await huge.closed;
    const reply = await healthy.request(API_VERSIONS, 2, 99);
    expect(readApiVersions(reply).errorCode).toBe(0);
    healthy.close();
  });

  test('kafkajs clients keep working after a peer sent garbage', async () => {
    const bad = await RawClient.connect(broker.kafka.port);
    bad.writeRaw(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    await bad.closed;
    const admin = broker.client().admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'still-fine' }] });
    expect(await admin.listTopics()).toContain('still-fine');
    await admin.disconnect();
  });
});
