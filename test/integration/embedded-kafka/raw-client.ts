import net from 'node:net';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';

/** A bare Kafka connection for wire-level tests: write frames, read size-prefixed responses. */
export class RawClient {
  private buffered = Buffer.alloc(0);
  private waiting: ((b: Buffer) => void)[] = [];
  closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, d]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        const frame = this.buffered.subarray(4, 4 + size);
        this.buffered = this.buffered.subarray(4 + size);
        this.waiting.shift()?.(frame);
      }
    });
    this.closed = new Promise((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  /** Sends raw bytes as they are (no size prefix added). */
  writeRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /**
   * Sends a request with a v1 header (v2, with an empty tagged-field section, when `flexible`) and the given
   * body; resolves with the response (after its size).
   */
  request(apiKey: number, apiVersion: number, correlationId: number, body: Buffer = Buffer.alloc(0), flexible = false): Promise<Buffer> {
    const w = new Writer().int16(apiKey).int16(apiVersion).int32(correlationId).string('raw-test');
    if (flexible) w.uvarint(0);
    w.raw(body);
    const frame = w.toBuffer();
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(frame.length);
    const reply = this.next();
    this.socket.write(Buffer.concat([prefix, frame]));
    return reply;
  }

  next(): Promise<Buffer> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  close(): void {
    this.socket.destroy();
  }
}
