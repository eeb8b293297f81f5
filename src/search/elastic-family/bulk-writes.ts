/**
 * `_bulk` writes: documents with their projection version (`external_gte`: an older event is refused with 409
 * and ignored, the same version re-applies so replays are idempotent) and deletes. Every batch carries the
 * refresh policy: a batch only refreshes the shards it wrote to, so with several shards waiting on the last
 * batch alone would not make the earlier ones visible.
 */
import { DeltabrokerError } from '../../errors';
import { engineCall } from './engine-errors';
import type { EngineTransport } from './engine-transport';

export type RefreshPolicy = 'wait_for' | boolean;

interface BulkResult {
  _id?: string;
  status: number;
  error?: { type?: string; reason?: string };
}

export interface BulkResponse {
  errors: boolean;
  items: Record<string, BulkResult>[];
}

/** Each entry: an action line and, for `index`, the document line. */
export type BulkOperation = unknown[];

/** The first failure of a bulk answer that is not an expected `ignoredStatus`, as a typed error. */
function bulkFailure(response: BulkResponse, ignoredStatus: number, product: string): DeltabrokerError | undefined {
  for (const item of response.items) {
    const result = Object.values(item)[0];
    if (result?.error === undefined || result.status === ignoredStatus) continue;
    const message = `${product} refused document ${JSON.stringify(result._id)}: ${result.error.type ?? ''}: ${result.error.reason ?? ''}`;
    const details = { stage: 'search-index', field: `docs[id=${result._id ?? ''}]`, engineStatus: result.status, engineType: result.error.type };
    if (result.status === 400) return new DeltabrokerError('DB_VALIDATION', message, { ...details, rule: 'rejected-by-engine' });
    if (result.status === 429 || result.status >= 500) return new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', message, details);
    return new DeltabrokerError('DB_INTERNAL', message, details);
  }
  return undefined;
}

/** Sends `batches` in order; answers the ids whose item failed with `ignoredStatus`. */
export async function sendBulk(
  transport: EngineTransport,
  batches: readonly BulkOperation[],
  ignoredStatus: number,
  refresh: RefreshPolicy,
): Promise<string[]> {
  const ignored: string[] = [];
  for (const batch of batches) {
    if (batch.length === 0) continue;
    const { body } = await engineCall(
      () => transport.request<BulkResponse>({ method: 'POST', path: '/_bulk', query: { refresh: String(refresh) }, ndjson: batch }),
      { stage: 'search-index', field: 'docs' },
    );
    if (!body.errors) continue;
    const failure = bulkFailure(body, ignoredStatus, transport.product);
    if (failure !== undefined) throw failure;
    for (const item of body.items) {
      const result = Object.values(item)[0];
      if (result?.status === ignoredStatus) ignored.push(result._id ?? '');
    }
  }
  return ignored;
}

export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
