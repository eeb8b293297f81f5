import type { OperationResult } from './load-loops';
import type { Prng } from './prng';

export type ReadKind = 'readByKey' | 'rqlList' | 'search';

const COUNTRIES = ['DE', 'FR', 'NL', 'GB', 'IT'];

/**
 * Storage-broker reads over HTTP, each a 200 or a failure: a read of one record by its key (RQL `eq` on the key
 * field), an RQL list (filter, sort, a page of 20, so a full page is counted by a second statement) and a DSL search
 * (a word match filtered by country and an mcc range, 10 hits).
 */
export class ReadLoad {
  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly prng: Prng,
    /** Keys that may be read (created by the load so far). */
    private readonly keys: () => readonly string[],
    private readonly origin = Date.now(),
  ) {}

  one(kind: ReadKind): Promise<OperationResult> {
    const country = this.prng.pick(COUNTRIES);
    const mcc = this.prng.int(1000, 9000);
    const keys = this.keys();
    switch (kind) {
      case 'readByKey':
        return this.post('read', `eq(merchantId,${keys.length > 0 ? this.prng.pick(keys) : 'none'})`);
      case 'rqlList':
        return this.post('read', `and(eq(country,${country}),ge(mcc,${mcc}))&sort(-mcc)&limit(20)`);
      case 'search':
        return this.post('search', {
          query: {
            bool: {
              must: [{ match: { name: 'merchant' } }],
              filter: [{ term: { 'country.keyword': country } }, { range: { mcc: { gte: mcc, lt: mcc + 500 } } }],
            },
          },
          size: 10,
        });
    }
  }

  private async post(operation: 'read' | 'search', payload: unknown): Promise<OperationResult> {
    const started = Date.now();
    const at = (started - this.origin) / 1000;
    try {
      const response = await fetch(`${this.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ dispatch: { entity: 'merchant_account', operation }, payload }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      const ok = response.status === 200;
      return { at, ok, status: response.status, ms: Date.now() - started, ...(!ok && { error: text.slice(0, 300) }) };
    } catch (error) {
      return { at, ok: false, status: 0, ms: Date.now() - started, error: String(error) };
    }
  }
}
