import type { Socket } from 'node:net';
import type { BrokerContext } from '../broker';
import { MalformedFrameError } from '../protocol/errors';
import { type DispatchResult, dispatch, mayOvertakeAnswers } from './dispatch';
import { FrameSplitter } from './framing';
import { type ClientSession, sessionFor } from './session';
import { saslStep } from '../security/sasl-step';

/** Frames read ahead of processing before the socket is paused. */
const MAX_QUEUED_FRAMES = 32;

/**
 * One client connection: frames are processed one at a time and answered in order (a parked Fetch or
 * JoinGroup holds back the requests behind it, as in Kafka). The one exception is a run of produces: each is
 * appended as it comes and answered once durable, so produces a client keeps in flight share a group commit's
 * fsync instead of paying one each; any other request waits until the answers before it are out. A malformed
 * frame closes this connection and nothing else.
 */
export class Connection {
  private readonly splitter: FrameSplitter;
  private readonly queue: Buffer[] = [];
  private running = false;
  private closed = false;
  /** Answers still waiting (for an fsync), chained so they leave in request order. */
  private answers: Promise<void> = Promise.resolve();
  private answersWaiting = 0;
  readonly session: ClientSession;

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerContext,
    maxFrameBytes: number,
    private readonly onClose: (c: Connection) => void,
  ) {
    this.splitter = new FrameSplitter(maxFrameBytes);
    this.session = sessionFor(socket.remoteAddress, socket.remotePort);
    socket.setNoDelay(true);
    // `connections.max.idle.ms`: no bytes either way for this long (a parked Fetch answers within its max wait).
    socket.setTimeout(broker.options.connectionsMaxIdleMs, () => {
      broker.logger.debug({ remote: this.session.remote }, 'idle connection closed');
      this.close();
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => broker.logger.debug({ err, remote: this.session.remote }, 'connection error'));
    socket.on('close', () => this.close());
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.queue.push(...this.splitter.push(chunk));
    } catch (err) {
      this.reject(err);
      return;
    }
    if (this.queue.length > MAX_QUEUED_FRAMES) this.socket.pause();
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        const frame = this.queue.shift()!;
        if (this.queue.length <= MAX_QUEUED_FRAMES / 2 && this.socket.isPaused()) this.socket.resume();
        if (this.answersWaiting > 0 && (this.session.sasl?.rawTokens || !mayOvertakeAnswers(frame))) await this.answers;
        const outcome = this.session.sasl?.rawTokens ? this.rawSaslToken(frame) : await dispatch(this.broker, frame, this.session);
        if (outcome.kind === 'later') {
          this.answerLater(outcome.reply);
          // Bounded like the frames read ahead: past that, the oldest answers go out first.
          if (this.answersWaiting >= MAX_QUEUED_FRAMES) await this.answers;
          if (this.socket.writableNeedDrain && !this.closed) await this.drained();
          continue;
        }
        await this.answers;
        if (outcome.kind === 'close') {
          this.broker.logger.debug({ remote: this.session.remote, reason: outcome.reason }, 'request outside the advertised versions; closing the connection');
          this.close();
          return;
        }
        if (outcome.kind === 'reply' && !this.closed) this.send(outcome.chunks);
        if (this.session.closeAfterReply !== undefined) {
          this.broker.logger.debug({ remote: this.session.remote, reason: this.session.closeAfterReply }, 'closing the connection after its answer');
          this.finish();
          return;
        }
        // A slow reader holds back its own next request rather than piling responses up in memory.
        if (this.socket.writableNeedDrain && !this.closed) await this.drained();
      }
    } catch (err) {
      this.reject(err);
    } finally {
      this.running = false;
    }
  }

  private answerLater(reply: Promise<{ chunks: Buffer[] }>): void {
    this.answersWaiting++;
    this.answers = this.answers
      .then(() => reply)
      .then(
        (answer) => {
          if (!this.closed) this.send(answer.chunks);
        },
        (err: unknown) => this.reject(err),
      )
      .finally(() => this.answersWaiting--);
  }

  /** After SaslHandshake v0 a token travels as a bare frame and its answer too (no request or response header). */
  private rawSaslToken(frame: Buffer): DispatchResult {
    const outcome = saslStep(this.broker, this.session, frame);
    return 'failed' in outcome ? { kind: 'close', reason: outcome.failed } : { kind: 'reply', chunks: [outcome.reply] };
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  private send(chunks: Buffer[]): void {
    let length = 0;
    for (const c of chunks) length += c.length;
    const prefix = Buffer.allocUnsafe(4);
    prefix.writeInt32BE(length, 0);
    this.socket.cork();
    this.socket.write(prefix);
    for (const c of chunks) this.socket.write(c);
    this.socket.uncork();
  }

  private reject(err: unknown): void {
    if (err instanceof MalformedFrameError) {
      this.broker.logger.warn({ remote: this.session.remote, reason: err.message }, 'malformed frame; closing the connection');
    } else {
      this.broker.logger.error({ err, remote: this.session.remote }, 'request failed; closing the connection');
    }
    this.close();
  }

  /** Closes after what was written is flushed (the answer to a failed authentication must reach the client). */
  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.socket.end();
    this.socket.setTimeout(1000, () => this.socket.destroy());
    this.onClose(this);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.socket.destroy();
    this.onClose(this);
  }
}
