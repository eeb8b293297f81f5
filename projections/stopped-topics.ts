/**
 * The topics projectors and action emitters have stopped because the log no longer holds their position
 * (lost-position.ts): one place the composition root turns into a log line, a metric and a readiness check,
 * so an operator sees at once which consumer stopped which partition, and why. Each consumer also says here how
 * it consumes a stopped partition again, so a recovery (projections/recovery) resumes it without a restart.
 */
import { DeltabrokerError } from '../src/errors';
import { topicRecreated, type LostPosition } from '../src/log';

export interface StoppedPartition extends LostPosition {
  /** The projector or emitter (its consumer group). */
  readonly consumer: string;
}

/** Consumes a stopped partition of the consumer again, from where that consumer's state says. */
export type PartitionResumer = (topic: string, partition: number) => Promise<void>;

export class StoppedTopics {
  private readonly stopped = new Map<string, { partition: StoppedPartition; error: DeltabrokerError }>();
  private readonly resumers = new Map<string, PartitionResumer>();

  /** `onStop` is told once per consumer and partition. */
  constructor(private readonly onStop: (partition: StoppedPartition, error: DeltabrokerError) => void = () => undefined) {}

  /** Records the stop (first report wins) and answers its DB_TOPIC_RECREATED error. */
  stop(consumer: string, lost: LostPosition): DeltabrokerError {
    const id = idOf(consumer, lost.topic, lost.partition);
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
    return this.stopped.get(idOf(consumer, topic, partition))?.error;
  }

  list(): StoppedPartition[] {
    return [...this.stopped.values()].map((s) => s.partition);
  }

  /** How `consumer` consumes a stopped partition again (one per consumer). */
  onResume(consumer: string, resume: PartitionResumer): void {
    this.resumers.set(consumer, resume);
  }

  /**
   * Consumes a stopped partition again through its consumer's resumer; it counts as stopped no longer from the
   * moment the resumer starts (the consumer's handler looks here), and again when the resumer fails.
   */
  async resume(stopped: StoppedPartition): Promise<void> {
    const id = idOf(stopped.consumer, stopped.topic, stopped.partition);
    const entry = this.stopped.get(id);
    const resumer = this.resumers.get(stopped.consumer);
    if (!entry || !resumer) {
      throw new DeltabrokerError('DB_CONFLICT', `${stopped.consumer} has not stopped ${stopped.topic}/${stopped.partition} in this process`, {
        field: 'partition',
        rule: 'stopped-here',
        stage: 'recover',
      });
    }
    this.stopped.delete(id);
    try {
      await resumer(stopped.topic, stopped.partition);
    } catch (error) {
      this.stopped.set(id, entry);
      throw error;
    }
  }

  /** Readiness: throws while any partition is stopped, naming each. */
  async check(): Promise<void> {
    const errors = [...this.stopped.values()].map((s) => s.error.message);
    if (errors.length > 0) throw new Error(`DB_TOPIC_RECREATED: ${errors.join('; ')}`);
  }
}

const idOf = (consumer: string, topic: string, partition: number): string => `${consumer}\u0000${topic}\u0000${partition}`;
