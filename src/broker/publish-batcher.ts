import type { OutgoingRecord, LogPosition, WriteLog } from '../log';

/**
 * Group commit for the HTTP write path: records published while an earlier publish is in flight are sent
 * together in the next one. The broker answers the requests of one connection one at a time, each after its
 * own fsync, so N concurrent writes as N produce requests queue behind each other; as one request they share
 * a round trip and an fsync. A lone write is sent at once (no linger), so an idle service adds no latency.
 * Each caller gets its own record's position, or the error of publishing its record.
 */
export class PublishBatcher {
  private readonly queue: { record: OutgoingRecord; resolve: (p: LogPosition) => void; reject: (e: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly log: WriteLog,
    /** Most records in one publish. */
    private readonly maxRecords = 500,
  ) {}

  publish(record: OutgoingRecord): Promise<LogPosition> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxRecords);
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
        if (batch.length === 1) (batch[0] as (typeof batch)[number]).reject(error);
        else await Promise.all(batch.map((b) => this.log.publish([b.record]).then(([p]) => (p ? b.resolve(p) : b.reject(error)), b.reject)));
      }
    }
    this.flushing = false;
  }
}
