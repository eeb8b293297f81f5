import { randomUUID } from 'node:crypto';
import type { DeltaOutcome, RecordSchemas, Subscription, WriteLog } from '../log';
import { PIPELINE_TOPICS } from '../../streams/topics';

/**
 * Lets an HTTP request wait for the verdict on the delta it published. The instance that decides a delta
 * delivers its verdict here directly (`deliver`); each instance also reads the outcomes topic in a group of its
 * own (from the latest offset), so a verdict reaches the waiting instance whichever instance decided it.
 */
export class OutcomeWaiter {
  readonly #waiting = new Map<string, { resolve: (o: DeltaOutcome) => void; timer: NodeJS.Timeout }>();
  #subscription: Subscription | undefined;

  async start(log: WriteLog, schemas: RecordSchemas, instanceId: string = randomUUID()): Promise<void> {
    await log.createTopics([{ topic: PIPELINE_TOPICS.outcomes, partitions: 3 }]);
    this.#subscription = await log.subscribe<DeltaOutcome>({
      groupId: `deltabroker-outcomes-${instanceId}`,
      topics: [PIPELINE_TOPICS.outcomes],
      start: 'latest',
      readerSchema: schemas.DeltaOutcome,
      partitionsConsumedConcurrently: 3,
      handleBatch: async (batch) => {
        for (const record of batch.records) this.deliver(record.value);
      },
    });
    await this.#subscription.joined;
  }

  /**
   * Registers interest in a delta's verdict; call before publishing the delta so the verdict cannot slip past.
   * The promise resolves to undefined when no verdict came within `timeoutMs`.
   */
  expect(deltaId: string, timeoutMs: number): Promise<DeltaOutcome | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(deltaId);
        resolve(undefined);
      }, timeoutMs);
      this.#waiting.set(deltaId, { resolve, timer });
    });
  }

  cancel(deltaId: string): void {
    const waiter = this.#waiting.get(deltaId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.#waiting.delete(deltaId);
  }

  async stop(): Promise<void> {
    await this.#subscription?.stop();
    for (const id of [...this.#waiting.keys()]) this.cancel(id);
  }

  /** Answers the caller waiting for this verdict, if any; a verdict nobody waits for (or a second copy) is dropped. */
  deliver(outcome: DeltaOutcome): void {
    const waiter = this.#waiting.get(outcome.deltaId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.#waiting.delete(outcome.deltaId);
    waiter.resolve(outcome);
  }
}
