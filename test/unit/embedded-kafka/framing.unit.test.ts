import { MalformedFrameError } from '../../../src/embedded/kafka/protocol/errors';
import { FrameSplitter } from '../../../src/embedded/kafka/server/framing';

const frame = (body: Buffer): Buffer => {
  const p = Buffer.alloc(4);
  p.writeInt32BE(body.length);
  return Buffer.concat([p, body]);
};

describe('frame splitting', () => {
  test('frames split across chunks and several in one chunk', () => {
    const a = Buffer.alloc(10, 1);
    const b = Buffer.alloc(20, 2);
    const stream = Buffer.concat([frame(a), frame(b)]);
    const s = new FrameSplitter(1024);
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 3) out.push(...s.push(stream.subarray(i, i + 3)));
    expect(out).toEqual([a, b]);
    expect(new FrameSplitter(1024).push(stream)).toEqual([a, b]);
  });

  test('a size prefix split over two chunks', () => {
    const a = Buffer.alloc(9, 5);
    const s = new FrameSplitter(100);
    const f = frame(a);
    expect(s.push(f.subarray(0, 2))).toEqual([]);
    expect(s.push(f.subarray(2))).toEqual([a]);
  });

  test('sizes below a request header or above the limit are refused', () => {
    expect(() => new FrameSplitter(100).push(frame(Buffer.alloc(3)))).toThrow(MalformedFrameError);
    expect(() => new FrameSplitter(100).push(Buffer.from([0, 0, 0, 101]))).toThrow(/exceeds/);
    expect(() => new FrameSplitter(100).push(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toThrow(MalformedFrameError);
  });
});
