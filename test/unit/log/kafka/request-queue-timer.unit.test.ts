/**
 * kafkajs's request queue with this project's scheduling (src/log/kafka/request-queue-timer.ts): no timer while
 * nothing waits, and a waiting request still goes out when an answer frees a slot or a throttle ends.
 */
import { KafkajsRequestQueueClass } from '../../../../src/log/kafka/request-queue-timer';

type Queue = InstanceType<typeof QueueCtor>;
const QueueCtor = KafkajsRequestQueueClass as unknown as new (o: Record<string, unknown>) => {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(r: {
    entry: { correlationId: number; apiKey: number; apiName: string; apiVersion: number; resolve: () => void; reject: () => void };
    expectResponse: boolean;
    sendRequest: () => void;
  }): void;
  fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
};

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const queueOf = (maxInFlightRequests: number | null): Queue =>
  new QueueCtor({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:1', logger: silent });

const sent: number[] = [];
const push = (queue: Queue, correlationId: number): void =>
  queue.push({
    entry: { correlationId, apiKey: 3, apiName: 'Metadata', apiVersion: 6, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  });

describe("kafkajs's request queue, scheduled by request-queue-timer", () => {
  beforeEach(() => void sent.splice(0));

  test('an answer with nothing waiting leaves no timer (kafkajs 2.2.4 sets one of about minus the epoch)', () => {
    const queue = queueOf(null);
    push(queue, 1);
    queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  test('a request held by the in-flight limit goes out when the answer before it comes; its check fires once', async () => {
    const queue = queueOf(1);
    push(queue, 1);
    push(queue, 2);
    expect(sent).toEqual([1]);
    queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
    queue.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    // The check scheduled while request 2 waited runs once and finds nothing to schedule again.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  test('a request queued while the broker throttles goes out when the throttle ends', async () => {
    const queue = queueOf(null);
    queue.maybeThrottle(50);
    push(queue, 1);
    expect(sent).toEqual([]);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(sent).toEqual([1]);
    queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });
});
