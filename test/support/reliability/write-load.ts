import type { OperationResult } from './load-loops';
import type { Prng } from './prng';

export interface WriteResult extends OperationResult {
  /** The accepted delta's id, from the answer. */
  deltaId?: string;
}

/**
 * Storage-broker writes over HTTP: creates of new merchant accounts and merging updates of created ones. Once
 * `maxRecords` creates were accepted, every write is an update, so the table stops growing.
 */
export class WriteLoad {
  /** Keys whose create was accepted. */
  readonly created: string[] = [];
  private next = 0;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly prng: Prng,
    private readonly prefix: string,
    private readonly origin = Date.now(),
    private readonly maxRecords = Number.POSITIVE_INFINITY,
  ) {}

  async one(): Promise<WriteResult> {
    const update = this.created.length >= this.maxRecords || (this.created.length > 100 && this.prng.chance(0.5));
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
      const deltaId = ok ? (JSON.parse(text) as { deltaId?: string }).deltaId : undefined;
      return { at, ok, status: response.status, ms: Date.now() - started, ...(deltaId && { deltaId }), ...(!ok && { error: text.slice(0, 300) }) };
    } catch (error) {
      return { at, ok: false, status: 0, ms: Date.now() - started, error: String(error) };
    }
  }
}
