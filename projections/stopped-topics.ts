/**
 * The topics projectors and action emitters have stopped because the log no longer holds their position
 * (lost-position.ts): one place the composition root turns into a log line, a metric and a readiness check,
 * so an operator sees at once which consumer stopped which partition, and why.
 */
import type { DeltabrokerError } from '../src/errors';
import { topicRecreated, type LostPosition } from '../src/log';

export interface StoppedPartition extends LostPosition {
  /** The projector or emitter (its consumer group). */
  readonly consumer: string;
}

export class StoppedTopics {
  private readonly stopped = new Map<string, { partition: StoppedPartition; error: DeltabrokerError }>();

  /** `onStop` is told once per consumer and partition. */
  constructor(private readonly onStop: (partition: StoppedPartition, error: DeltabrokerError) => void = () => undefined) {}

  /** Records the stop (first report wins) and answers its DB_TOPIC_RECREATED error. */
  stop(consumer: string, lost: LostPosition): DeltabrokerError {
    const id = `${consumer}\u0000${lost.topic}\u0000${lost.partition}`;
    const known = this.stopped.get(id);
    if (known) return known.error;
    const partition = { consumer, ...lost };
    const error = topicRecreated(lost, consumer);
    this.stopped.set(id, { partition, error });
    this.onStop(partition, error);
    return error;
  }

  /** The error a consumer's partition stopped with, if it did. */
  errorOf(consumer: string, topic: string, partition: number): DeltabrokerError | undefined {
    return this.stopped.get(`${consumer}\u0000${topic}\u0000${partition}`)?.error;
  }

  list(): StoppedPartition[] {
    return [...this.stopped.values()].map((s) => s.partition);
  }

  /** Readiness: throws while any partition is stopped, naming each. */
  async check(): Promise<void> {
    const errors = [...this.stopped.values()].map((s) => s.error.message);
    if (errors.length > 0) throw new Error(`DB_TOPIC_RECREATED: ${errors.join('; ')}`);
  }
}
