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

  test('ApiVersions v3 (flexible, as librdkafka opens) gets UNSUPPORTED_VERSION with our ranges; the connection stays usable', async () => {
    const c = await RawClient.connect(broker.kafka.port);
    const reply = await c.request(API_VERSIONS, 3, 7, Buffer.from([0, 0, 0])); // tagged fields etc.: not read
    expect(reply.readInt32BE(0)).toBe(7);
    const v3 = readApiVersions(reply);
    expect(v3.errorCode).toBe(UNSUPPORTED_VERSION);
    expect(v3.keys.get(API_VERSIONS)).toEqual([0, 2]);
    expect(v3.keys.get(0)).toEqual([3, 7]);
    const ok = readApiVersions(await c.request(API_VERSIONS, 0, 8));
    expect(ok.errorCode).toBe(0);
    expect(ok.keys.size).toBe(16);
    c.close();
  });

  test('an unknown API key or a version outside the range gets UNSUPPORTED_VERSION, then the next request is served', async () => {
    const c = await RawClient.connect(broker.kafka.port);
    const unknown = await c.request(9999, 0, 11);
    expect(unknown.readInt32BE(0)).toBe(11);
    expect(unknown.readInt16BE(4)).toBe(UNSUPPORTED_VERSION);
    const tooNew = await c.request(METADATA, 12, 12);
    expect(tooNew.readInt32BE(0)).toBe(12);
    expect(tooNew.readInt16BE(4)).toBe(UNSUPPORTED_VERSION);
    const meta = await c.request(METADATA, 1, 13, new Writer().int32(0).toBuffer()); // no topics
    expect(meta.readInt32BE(0)).toBe(13);
    const r = new Reader(meta, 4);
    expect(r.int32()).toBe(1); // one broker
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
