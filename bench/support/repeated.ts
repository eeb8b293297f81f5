/**
 * Baselines measured more than once. On a shared or virtual host one measurement of a baseline moved by up to 75 %
 * between back-to-back runs (GET /health from 10,300 to 18,000 req/s), which a ratio to it carried whole. Measuring
 * it several times, in turns with the figure or spread over the run, and taking the median sample makes one run say
 * more; the notes give the spread, so a reader sees how far the host drifted.
 */

/** The sample whose `value` is the median (of an odd count; the lower middle one of an even count). */
export function medianBy<T>(samples: readonly T[], value: (sample: T) => number): T {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((x, y) => value(x) - value(y));
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}

/** "lowest–highest of n", for a figure's notes. */
export function spread(values: readonly number[], format: (n: number) => string): string {
  return `${format(Math.min(...values))}–${format(Math.max(...values))} over ${values.length}`;
}

/** Runs `a` and `b` in turns, `turns` times each (a, b, a, b, …): both meet the same drift of the host. */
export async function inTurns<A, B>(turns: number, a: () => Promise<A>, b: () => Promise<B>): Promise<{ a: A[]; b: B[] }> {
  const result: { a: A[]; b: B[] } = { a: [], b: [] };
  for (let turn = 0; turn < turns; turn++) {
    result.a.push(await a());
    result.b.push(await b());
  }
  return result;
}
