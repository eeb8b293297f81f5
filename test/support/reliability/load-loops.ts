/** One operation of a load run: when it started, whether it succeeded and how long it took. */
export interface OperationResult {
  /** Seconds since the load's time origin when the operation started. */
  at: number;
  ok: boolean;
  /** The HTTP status (0 when there was no answer or the operation is not HTTP). */
  status: number;
  ms: number;
  error?: string;
}

/** Closed loop: `concurrency` workers run `one` back to back for `seconds`; answers the rate of successes. */
export async function closedLoop<R extends OperationResult>(
  one: () => Promise<R>,
  concurrency: number,
  seconds: number,
): Promise<{ rate: number; results: R[] }> {
  const results: R[] = [];
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) results.push(await one());
    }),
  );
  return { rate: results.filter((r) => r.ok).length / ((Date.now() - started) / 1000), results };
}

/**
 * Open loop: starts operations at `rate` per second for `seconds`, whatever the answers take (at most `maxInFlight`
 * at once; an operation that could not start on time is counted as late).
 */
export async function openLoop<R extends OperationResult>(
  one: () => Promise<R>,
  rate: number,
  seconds: number,
  maxInFlight: number,
): Promise<{ results: R[]; late: number }> {
  const results: R[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let launched = 0;
  let late = 0;
  while (Date.now() - started < seconds * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (launched < due) {
      if (inFlight.size >= maxInFlight) {
        late += due - launched;
        launched = due;
        break;
      }
      launched++;
      const p: Promise<void> = one().then((r) => {
        results.push(r);
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(inFlight);
  return { results, late };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export const median = (values: number[]): number => percentile(values, 50);
