/** Engine failures as the service's typed errors, keeping the engine's status, type and reason. */
import { DeltabrokerError } from '../../errors';
import { EngineResponseError } from './engine-transport';

interface EngineErrorBody {
  error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] } | string;
}

/** Where a refusal points: the request's part the engine refused (`payload` for a search body, `docs`, `index`). */
export interface FailureContext {
  stage: string;
  field: string;
}

export function engineReason(body: unknown): { type: string; reason: string } {
  const error = (body as EngineErrorBody | undefined)?.error;
  if (typeof error === 'string') return { type: 'unknown', reason: error };
  const cause = error?.root_cause?.[0] ?? error;
  return { type: cause?.type ?? 'unknown', reason: cause?.reason ?? '' };
}

/**
 * The engine's refusal to create an index whose name is taken. Engines' clients send a request again when its
 * answer does not come in time, so creating an index can meet the index its own first attempt made.
 */
export const isAlreadyExists = (error: unknown): boolean =>
  error instanceof EngineResponseError && error.status === 400 && engineReason(error.body).type === 'resource_already_exists_exception';

/**
 * The engine's refusal of an alias action whose index or alias is gone: what a retried `_aliases` request meets
 * when its first attempt was applied.
 */
export const isIndexOrAliasMissing = (error: unknown): boolean =>
  error instanceof EngineResponseError &&
  error.status === 404 &&
  ['index_not_found_exception', 'aliases_not_found_exception'].includes(engineReason(error.body).type);

export function fromEngineError(error: unknown, context: FailureContext = { stage: 'search', field: 'payload' }): DeltabrokerError {
  if (error instanceof DeltabrokerError) return error;
  if (!(error instanceof EngineResponseError))
    return new DeltabrokerError('DB_INTERNAL', 'search engine request failed', { stage: context.stage }, { cause: error });
  const { product, status } = error;
  const { type, reason } = engineReason(error.body);
  const details = { stage: context.stage, engineStatus: status, engineType: type };
  if (status === 404 && type === 'index_not_found_exception') {
    return new DeltabrokerError('DB_NOT_FOUND', 'no such search index', { ...details, field: 'dispatch.entity', rule: 'index-exists' }, { cause: error });
  }
  if (status === 400) {
    return new DeltabrokerError(
      'DB_VALIDATION',
      `${product} refused the request: ${reason}`,
      { ...details, field: context.field, rule: 'rejected-by-engine' },
      { cause: error },
    );
  }
  if (status === 409) return new DeltabrokerError('DB_CONFLICT', `${product} reported a conflict: ${reason}`, details, { cause: error });
  if (status === 429 || status >= 500) {
    return new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `${product} is not available: ${reason}`, details, { cause: error });
  }
  return new DeltabrokerError('DB_INTERNAL', `${product} answered ${status}: ${reason}`, details, { cause: error });
}

/** Runs one engine call, turning its failure into a typed error for `context`. */
export async function engineCall<T>(call: () => Promise<T>, context?: FailureContext): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromEngineError(error, context);
  }
}
