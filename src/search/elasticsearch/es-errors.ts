/** Elasticsearch client failures as the service's typed errors, keeping the engine's reason and status. */
import { errors } from '@elastic/elasticsearch';
import { DeltabrokerError } from '../../errors';

interface EngineErrorBody {
  error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] };
}

export function fromElasticsearchError(error: unknown, stage = 'search'): DeltabrokerError {
  if (error instanceof DeltabrokerError) return error;
  if (error instanceof errors.ResponseError) {
    const status = error.meta.statusCode ?? 500;
    const body = error.body as EngineErrorBody | undefined;
    const cause = body?.error?.root_cause?.[0] ?? body?.error;
    const type = cause?.type ?? 'unknown';
    const reason = cause?.reason ?? error.message;
    const details = { stage, engineStatus: status, engineType: type };
    if (status === 404 && type === 'index_not_found_exception') {
      return new DeltabrokerError('DB_NOT_FOUND', 'no such search index', { ...details, field: 'dispatch.entity', rule: 'index-exists' }, { cause: error });
    }
    if (status === 400)
      return new DeltabrokerError(
        'DB_VALIDATION',
        `Elasticsearch refused the request: ${reason}`,
        { ...details, field: 'payload', rule: 'rejected-by-engine' },
        { cause: error },
      );
    if (status === 409) return new DeltabrokerError('DB_CONFLICT', `Elasticsearch reported a conflict: ${reason}`, details, { cause: error });
    if (status === 429 || status >= 500)
      return new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `Elasticsearch is not available: ${reason}`, details, { cause: error });
    return new DeltabrokerError('DB_INTERNAL', `Elasticsearch answered ${status}: ${reason}`, details, { cause: error });
  }
  if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) {
    return new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'Elasticsearch is not reachable', { stage }, { cause: error });
  }
  return new DeltabrokerError('DB_INTERNAL', 'Elasticsearch request failed', { stage }, { cause: error });
}
