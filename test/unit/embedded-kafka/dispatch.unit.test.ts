import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrokerContext } from '../../../src/embedded/kafka/broker';
import { resolveOptions } from '../../../src/embedded/kafka/options';
import { MalformedFrameError } from '../../../src/embedded/kafka/protocol/errors';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { dispatch } from '../../../src/embedded/kafka/server/dispatch';
import { sessionFor } from '../../../src/embedded/kafka/server/session';

/** Request frames in, response bytes out: the broker without sockets. */
let dir: string;
let broker: BrokerContext;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-dispatch-'));
  broker = new BrokerContext(resolveOptions({ dataDir: dir, port: 9092 }));
});
afterAll(async () => {
  await broker.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const frame = (apiKey: number, version: number, correlationId: number, body: Buffer = Buffer.alloc(0)): Buffer =>
  new Writer().int16(apiKey).int16(version).int32(correlationId).string('unit').raw(body).toBuffer();
const session = sessionFor('127.0.0.1', 40000);
const run = async (f: Buffer): Promise<Buffer> => {
  const dispatched = await dispatch(broker, f, session);
  const outcome = dispatched.kind === 'later' ? await dispatched.reply : dispatched;
  if (outcome.kind !== 'reply') throw new Error(`expected a reply, got ${outcome.kind}`);
  return Buffer.concat(outcome.chunks);
};
/** A request frame with header v2 (flexible versions): the client id, then an empty tagged-field section. */
const flexibleFrame = (apiKey: number, version: number, correlationId: number, body: Buffer): Buffer =>
  new Writer().int16(apiKey).int16(version).int32(correlationId).string('unit').uvarint(0).raw(body).toBuffer();

describe('dispatch', () => {
  test('ApiVersions v4 (newer than ours) is answered in the v0 format: correlation id, UNSUPPORTED_VERSION, our ranges', async () => {
    const res = await run(frame(18, 4, 0x0a0b0c0d));
    expect(res.subarray(0, 6).toString('hex')).toBe('0a0b0c0d0023');
    const r = new Reader(res, 6);
    const keys = r.array((r) => [r.int16(), r.int16(), r.int16()]);
    expect(keys).toHaveLength(31);
    expect(keys[0]).toEqual([0, 3, 7]);
    expect(r.remaining).toBe(0);
  });

  test('ApiVersions v3 (KIP-511): header v2 in, response header v0 and a flexible body out; the software is kept', async () => {
    const body = new Writer().compactString('librdkafka').compactString('2.0.2').uvarint(0).toBuffer();
    const res = await run(flexibleFrame(18, 3, 7, body));
    const r = new Reader(res);
    expect(r.int32()).toBe(7); // no tagged-field byte after the correlation id
    expect(r.int16()).toBe(0);
    const keys = r.compactArray((r) => {
      const k = [r.int16(), r.int16(), r.int16()];
      r.skipTaggedFields();
      return k;
    });
    expect(keys).toContainEqual([18, 0, 3]);
    expect(keys).toContainEqual([19, 0, 4]);
    expect(r.int32()).toBe(0);
    r.skipTaggedFields();
    expect(r.remaining).toBe(0);
    expect(session.clientSoftware).toEqual({ name: 'librdkafka', version: '2.0.2' });
  });

  test('ApiVersions v3 with a software name KIP-511 forbids: INVALID_REQUEST and no ranges', async () => {
    const body = new Writer().compactString('-bad name').compactString('1').uvarint(0).toBuffer();
    expect((await run(flexibleFrame(18, 3, 8, body))).toString('hex')).toBe(['00000008', '002a', '01', '00000000', '00'].join(''));
  });

  test('an API we do not serve, or a version outside its range, closes the connection without an answer', async () => {
    expect(await dispatch(broker, frame(23, 0, 5), session)).toEqual({ kind: 'close', reason: 'unknown-api: api key 23 version 0' });
    expect(await dispatch(broker, frame(0, 2, 6), session)).toEqual({ kind: 'close', reason: 'unsupported-version: api key 0 version 2' });
  });

  test("Metadata v0 (kafka-python's probe): an empty list means every topic; no rack, controller or internal flag", async () => {
    broker.logs.createTopic('dispatch.v0', 1);
    const res = await run(frame(3, 0, 11, new Writer().int32(0).toBuffer()));
    const r = new Reader(res);
    expect(r.int32()).toBe(11);
    expect(r.array((r) => [r.int32(), r.string(), r.int32()])).toEqual([[1, '127.0.0.1', 9092]]);
    const topics = r.array((r) => ({
      error: r.int16(),
      name: r.string(),
      partitions: r.array((r) => [r.int16(), r.int32(), r.int32(), r.array((r) => r.int32()), r.array((r) => r.int32())]),
    }));
    expect(topics).toEqual([{ error: 0, name: 'dispatch.v0', partitions: [[0, 0, 1, [1], [1]]] }]);
    expect(r.remaining).toBe(0);
  });

  test('Metadata v1 with no topics: this node is broker and controller', async () => {
    const res = await run(frame(3, 1, 9, new Writer().int32(0).toBuffer()));
    const r = new Reader(res);
    expect(r.int32()).toBe(9);
    expect(r.array((r) => [r.int32(), r.string(), r.int32(), r.nullableString()])).toEqual([[1, '127.0.0.1', 9092, null]]);
    expect(r.int32()).toBe(1); // controller
    expect(r.array((r) => r.int8())).toEqual([]);
    expect(r.remaining).toBe(0);
  });

  test('Produce with acks=0 gets no response at all', async () => {
    const body = new Writer()
      .nullableString(null)
      .int16(0)
      .int32(1000)
      .array([], () => undefined)
      .toBuffer();
    expect(await dispatch(broker, frame(0, 7, 1, body), session)).toEqual({ kind: 'none' });
  });

  test('a supported request that does not decode throws MalformedFrameError (the connection closes)', async () => {
    await expect(dispatch(broker, frame(3, 1, 2, Buffer.from([0, 0, 0, 9])), session)).rejects.toThrow(MalformedFrameError);
  });
});
