import { MalformedFrameError } from '../protocol/errors';
import { MIN_HEADER_SIZE } from '../protocol/header';

/**
 * Splits a byte stream into size-prefixed frames (INT32 length, then that many bytes). Chunks are joined
 * only once a whole frame is present. A length below a request header or above the limit is a protocol
 * violation: the caller closes the connection.
 */
export class FrameSplitter {
  private chunks: Buffer[] = [];
  private have = 0;
  private need = -1;

  constructor(private readonly maxFrameBytes: number) {}

  /** Adds bytes; returns the frames they complete (without their length prefix). */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.have += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.have < 4) break;
        if (this.chunks[0]!.length < 4) this.chunks = [Buffer.concat(this.chunks, this.have)];
        const size = this.chunks[0]!.readInt32BE(0);
        if (size < MIN_HEADER_SIZE) throw new MalformedFrameError(`frame size ${size} is below a request header`);
        if (size > this.maxFrameBytes) throw new MalformedFrameError(`frame size ${size} exceeds the limit of ${this.maxFrameBytes}`);
        this.need = size + 4;
      }
      if (this.have < this.need) break;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.have);
      frames.push(all.subarray(4, this.need));
      const rest = all.subarray(this.need);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.have = rest.length;
      this.need = -1;
    }
    return frames;
  }
}
