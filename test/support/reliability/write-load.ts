import type { Prng } from './prng';

export interface WriteResult {
  /** Seconds since the load's time origin when the write started. */
  at: number;
  ok: boolean;
  status: number;
  ms: number;
  error?: string;
}

/** Storage-broker writes over HTTP: creates of new merchant accounts and merging updates of created ones. */
export class WriteLoad {
  private created: string[] = [];
  private next = 0;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly prng: Prng,
    private readonly prefix: string,
    private readonly origin = Date.now(),
  ) {}

  async one(): Promise<WriteResult> {
    const update = this.created.length > 100 && this.prng.chance(0.5);
    const key = update ? this.prng.pick(this.created) : `${this.prefix}-${this.next++}`;
    const payload = {
      merchantId: key,
      name: `load ${key} ${this.prng.string(6)}`,
      country: this.prng.pick(['DE', 'FR', 'NL']),
      mcc: this.prng.int(1000, 9999),
    };
    const started = Date.now();
    const at = (started - this.origin) / 1000;
    try {
      const response = await fetch(`${this.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ dispatch: { entity: 'merchant_account', operation: update ? 'update' : 'create' }, payload }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      const ok = response.status === 200 || response.status === 201;
      if (ok && !update) this.created.push(key);
      return { at, ok, status: response.status, ms: Date.now() - started, ...(!ok && { error: text.slice(0, 300) }) };
    } catch (error) {
      return { at, ok: false, status: 0, ms: Date.now() - started, error: String(error) };
    }
  }

  /** Closed loop: `concurrency` writers back to back for `seconds`; answers the rate of successful writes. */
  async peak(concurrency: number, seconds: number): Promise<{ rate: number; results: WriteResult[] }> {
    const results: WriteResult[] = [];
    const until = Date.now() + seconds * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) results.push(await this.one());
      }),
    );
    return { rate: results.filter((r) => r.ok).length / ((Date.now() - started) / 1000), results };
  }

  /**
   * Open loop: starts writes at `rate` per second for `seconds`, whatever the answers take (at most `maxInFlight`
   * at once; a write that could not start on time is counted as late). `onTick` runs about every second.
   */
  async steady(rate: number, seconds: number, maxInFlight: number, onTick: () => void): Promise<{ results: WriteResult[]; late: number }> {
    const results: WriteResult[] = [];
    const inFlight = new Set<Promise<void>>();
    const started = Date.now();
    let launched = 0;
    let late = 0;
    let lastTick = started;
    while (Date.now() - started < seconds * 1000) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      while (launched < due) {
        if (inFlight.size >= maxInFlight) {
          late += due - launched;
          launched = due;
          break;
        }
        launched++;
        const p: Promise<void> = this.one().then((r) => {
          results.push(r);
          inFlight.delete(p);
        });
        inFlight.add(p);
      }
      if (Date.now() - lastTick >= 1000) {
        lastTick = Date.now();
        onTick();
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
    return { results, late };
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export const median = (values: number[]): number => percentile(values, 50);
