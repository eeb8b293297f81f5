import type { OutgoingRecord, LogPosition, WriteLog } from '../log';

interface Waiting {
  readonly record: OutgoingRecord;
  readonly resolve: (p: LogPosition) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * Group commit for the HTTP write path. On a log whose concurrent publishes are acknowledged together (the
 * in-process adapter), the records of one turn of the event loop go out as one publish at once, whatever is still
 * in flight: each is appended without waiting for an earlier fsync, so it goes into the next group commit rather
 * than the one after. On a Kafka producer, whose connection answers its requests one after another, each after its own
 * fsync, records published while an earlier publish is in flight are sent together in the next one: N concurrent
 * writes share a round trip and an fsync instead of queueing N deep. A lone write is sent at once either way, so an
 * idle service adds no latency. Each caller gets its own record's position, or the error of publishing its record.
 */
export class PublishBatcher {
  private readonly queue: Waiting[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(
    private readonly log: WriteLog,
    /** Most records in one publish. */
    private readonly maxRecords = 500,
  ) {}

  publish(record: OutgoingRecord): Promise<LogPosition> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (this.log.publishesAcknowledgedTogether) this.scheduleTurn();
      else if (!this.flushing) void this.flushInTurns();
    });
  }

  /** Everything queued in this turn, sent once the turn's I/O callbacks have run (setImmediate). */
  private scheduleTurn(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0) void this.send(this.queue.splice(0, this.maxRecords));
    });
  }

  /** One publish at a time; what queued meanwhile goes out in the next. */
  private async flushInTurns(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) await this.send(this.queue.splice(0, this.maxRecords));
    this.flushing = false;
  }

  private async send(batch: Waiting[]): Promise<void> {
    try {
      const positions = await this.log.publish(batch.map((b) => b.record));
      batch.forEach((b, i) => {
        const position = positions[i];
        if (position) b.resolve(position);
        else b.reject(new Error('the log acknowledged no position for the record'));
      });
    } catch (error) {
      // One record must not fail the others (a record too large for the broker, say): each is tried alone.
      // A delta that did reach the log and is sent again is applied once (the pipeline keeps outcomes by id).
      if (batch.length === 1) (batch[0] as Waiting).reject(error);
      else await Promise.all(batch.map((b) => this.log.publish([b.record]).then(([p]) => (p ? b.resolve(p) : b.reject(error)), b.reject)));
    }
  }
}
