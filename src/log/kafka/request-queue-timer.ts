/**
 * kafkajs 2.2.4 (its newest release) keeps a timer firing every millisecond on every connection once the
 * connection has had one answer (tulios/kafkajs#1704, #1751): `RequestQueue.scheduleCheckPendingRequests` sets a
 * timeout of `throttledUntil - Date.now()`, and `throttledUntil` is -1 until a broker throttles, so the delay is
 * about minus the epoch (Node makes it 1 ms, and Node 24 warns `TimeoutNegativeWarning`); the check it runs
 * schedules the next one. An idle admin client and producer on the embedded broker cost their process about 65 ms
 * of CPU a second (1,600 timers a second).
 *
 * Importing this module replaces that method with one that sets a timer only when requests wait in the queue: at
 * the end of the broker's throttle, else after CHECK_PENDING_REQUESTS_INTERVAL (the in-flight limit; an answer
 * checks the queue as well). With nothing waiting there is nothing to send: `push` sends at once or queues and
 * schedules, and every answer checks the queue. kafka-client.ts, where every kafkajs client of the service is made, imports it.
 */
import { createRequire } from 'node:module';

/** kafkajs's own interval for a queue held by its in-flight limit (network/requestQueue/index.js). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

/** The part of kafkajs's internal RequestQueue this module relies on. */
interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's RequestQueue class: internal, so loaded by path from the installed package. */
export const KafkajsRequestQueueClass = createRequire(require.resolve('kafkajs'))('./src/network/requestQueue') as {
  prototype: KafkajsRequestQueue;
};

function scheduleCheckPendingRequests(this: KafkajsRequestQueue): void {
  if (this.throttleCheckTimeoutId !== null || this.pending.length === 0) return;
  const throttledFor = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    throttledFor > 0 ? throttledFor : CHECK_PENDING_REQUESTS_INTERVAL,
  );
}

// A kafkajs whose queue no longer has the method would leave the replacement unused: fail at start instead.
if (typeof KafkajsRequestQueueClass.prototype.scheduleCheckPendingRequests !== 'function')
  throw new Error('kafkajs RequestQueue has no scheduleCheckPendingRequests: check src/log/kafka/request-queue-timer.ts against this kafkajs');
KafkajsRequestQueueClass.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
