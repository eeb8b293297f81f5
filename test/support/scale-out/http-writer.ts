import type { DeltaEnvelope } from '../../../src/log';
import type { Instance } from './fleet';

export interface HttpWriteOptions {
  /** The instances to spread writes over; a write whose instance is down or answers late goes to the next. */
  instances: () => Instance[];
  token: string;
  workers: number;
  deadlineMs: number;
}

export interface HttpWriteResult {
  acknowledged: number;
  /** Attempts that failed (connection refused or reset, 5xx, 504) and were sent again with the same Idempotency-Key. */
  retries: number;
  /** Answer times of acknowledged writes (last attempt), in ms. */
  latencies: number[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends the deltas as HTTP writes (`POST /`), each with its delta id as Idempotency-Key, so a write sent again
 * after a lost answer is the same delta. Keys are split among `workers`; a worker sends its keys' deltas one by one
 * in stream order, the next only once the last was acknowledged (201), so per-key order is the stream's. Writes
 * rotate over the live instances; a refusal (4xx) fails the run, since the stream is valid in order.
 */
export async function writeOverHttp(deltas: DeltaEnvelope[], o: HttpWriteOptions, onAck: (count: number) => void): Promise<HttpWriteResult> {
  const deadline = Date.now() + o.deadlineMs;
  const queues: DeltaEnvelope[][] = Array.from({ length: o.workers }, () => []);
  const workerOf = new Map<string, number>();
  for (const d of deltas) {
    if (!workerOf.has(d.key)) workerOf.set(d.key, workerOf.size % o.workers);
    queues[workerOf.get(d.key) as number]?.push(d);
  }
  const result: HttpWriteResult = { acknowledged: 0, retries: 0, latencies: [] };
  let turn = 0;
  const send = async (d: DeltaEnvelope): Promise<void> => {
    for (;;) {
      if (Date.now() > deadline) throw new Error(`HTTP writes did not finish in time: ${result.acknowledged} of ${deltas.length} acknowledged`);
      const live = o.instances();
      const target = live[turn++ % Math.max(live.length, 1)];
      if (target === undefined) {
        await sleep(100);
        continue;
      }
      const started = Date.now();
      try {
        const response = await fetch(`${target.url}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}`, 'idempotency-key': d.id },
          body: JSON.stringify({ dispatch: { entity: d.entity, operation: d.operation }, payload: JSON.parse(d.payload ?? '{}') }),
          signal: AbortSignal.timeout(30_000),
        });
        const body = await response.text();
        if (response.status === 200 || response.status === 201) {
          result.latencies.push(Date.now() - started);
          return;
        }
        if (response.status < 500) throw new Error(`write ${d.id} (${d.operation} ${d.key}) was refused: ${response.status} ${body}`);
      } catch (error) {
        if ((error as Error).message.includes('was refused')) throw error;
      }
      result.retries++;
      await sleep(50);
    }
  };
  await Promise.all(
    queues.map(async (queue) => {
      for (const d of queue) {
        await send(d);
        onAck(++result.acknowledged);
      }
    }),
  );
  return result;
}
