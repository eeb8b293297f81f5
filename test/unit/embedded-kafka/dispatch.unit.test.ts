import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrokerContext } from '../../../src/embedded/kafka/broker';
import { resolveOptions } from '../../../src/embedded/kafka/options';
import { MalformedFrameError } from '../../../src/embedded/kafka/protocol/errors';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { dispatch } from '../../../src/embedded/kafka/server/dispatch';

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
const run = async (f: Buffer): Promise<Buffer> => Buffer.concat((await dispatch(broker, f, '127.0.0.1'))!);

describe('dispatch', () => {
  test('ApiVersions v3 is answered in the v0 format: correlation id, UNSUPPORTED_VERSION, our ranges, no tagged fields', async () => {
    const res = await run(frame(18, 3, 0x0a0b0c0d));
    expect(res.subarray(0, 6).toString('hex')).toBe('0a0b0c0d0023');
    const r = new Reader(res, 6);
    const keys = r.array((r) => [r.int16(), r.int16(), r.int16()]);
    expect(keys).toHaveLength(16);
    expect(keys[0]).toEqual([0, 3, 7]);
    expect(r.remaining).toBe(0);
  });

  test('an API we do not serve: correlation id and UNSUPPORTED_VERSION', async () => {
    expect((await run(frame(23, 0, 5))).toString('hex')).toBe('000000050023');
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
    const body = new Writer().nullableString(null).int16(0).int32(1000).array([], () => undefined).toBuffer();
    expect(await dispatch(broker, frame(0, 7, 1, body), '127.0.0.1')).toBeNull();
  });

  test('a supported request that does not decode throws MalformedFrameError (the connection closes)', async () => {
    await expect(dispatch(broker, frame(3, 1, 2, Buffer.from([0, 0, 0, 9])), '127.0.0.1')).rejects.toThrow(MalformedFrameError);
  });
});
