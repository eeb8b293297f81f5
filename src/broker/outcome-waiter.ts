import { randomUUID } from 'node:crypto';
import type { DeltaOutcome, RecordSchemas, Subscription, WriteLog } from '../log';
import { deltaKey, outcomeWaiterGroup, PIPELINE_TOPICS } from '../log/topology';

/**
 * Lets an HTTP request wait for the verdict on the delta it published. The instance that decides a delta
 * delivers its verdict here directly (`deliver`); each instance also reads the outcomes topic in a group of its
 * own (from the latest offset), so a verdict reaches the waiting instance whichever instance decided it. That
 * group commits no positions: the next start begins at the latest offset again, and the group leaves no offsets.
 */
export class OutcomeWaiter {
  readonly #waiting = new Map<string, { resolve: (o: DeltaOutcome) => void; timer: NodeJS.Timeout }>();
  #subscription: Subscription | undefined;

  async start(log: WriteLog, schemas: RecordSchemas, instanceId: string = randomUUID()): Promise<void> {
    await log.createTopics([{ topic: PIPELINE_TOPICS.outcomes, partitions: 3 }]);
    this.#subscription = await log.subscribe<DeltaOutcome>({
      groupId: outcomeWaiterGroup(instanceId),
      topics: [PIPELINE_TOPICS.outcomes],
      start: 'latest',
      commitPositions: false,
      readerSchema: schemas.DeltaOutcome,
      partitionsConsumedConcurrently: 3,
      handleBatch: async (batch) => {
        for (const record of batch.records) this.deliver(record.value);
      },
    });
    await this.#subscription.joined;
  }

  /**
   * Registers interest in the verdict on `tenant`'s delta; call before publishing the delta so the verdict
   * cannot slip past. Resolves to undefined when no verdict came within `timeoutMs`. Another tenant's delta
   * with the same id never answers it.
   */
  expect(tenant: string, deltaId: string, timeoutMs: number): Promise<DeltaOutcome | undefined> {
    const key = deltaKey(tenant, deltaId);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(key);
        resolve(undefined);
      }, timeoutMs);
      this.#waiting.set(key, { resolve, timer });
    });
  }

  cancel(tenant: string, deltaId: string): void {
    const key = deltaKey(tenant, deltaId);
    const waiter = this.#waiting.get(key);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.#waiting.delete(key);
  }

  async stop(): Promise<void> {
    await this.#subscription?.stop();
    for (const waiter of this.#waiting.values()) clearTimeout(waiter.timer);
    this.#waiting.clear();
  }

  /** Answers the caller waiting for this verdict, if any; a verdict nobody waits for (or a second copy) is dropped. */
  deliver(outcome: DeltaOutcome): void {
    const key = deltaKey(outcome.tenant, outcome.deltaId);
    const waiter = this.#waiting.get(key);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.#waiting.delete(key);
    waiter.resolve(outcome);
  }
}
