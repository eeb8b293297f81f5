import { DeltabrokerError, ERROR_CATALOGUE, isDeltabrokerError, type ErrorCode } from '../errors';

/** The one place an error code becomes an HTTP status. */
const STATUS: Record<ErrorCode, number> = {
  DB_BAD_REQUEST: 400,
  DB_VALIDATION: 400,
  DB_PAYLOAD_TOO_LARGE: 413,
  DB_UNSUPPORTED_MEDIA_TYPE: 415,
  DB_HEADERS_TOO_LARGE: 431,
  DB_UNAUTHENTICATED: 401,
  DB_FORBIDDEN: 403,
  DB_NOT_FOUND: 404,
  DB_METHOD_NOT_ALLOWED: 405,
  DB_CONFLICT: 409,
  DB_UNKNOWN_METHOD: 400,
  DB_UNKNOWN_KEY: 400,
  DB_KEY_VERSION_DISABLED: 400,
  DB_SESSION_INVALID: 400,
  DB_DECRYPT_FAILED: 400,
  DB_SUBJECT_ERASED: 410,
  DB_HSM_UNAVAILABLE: 503,
  // 503, not 422: nothing in the request is wrong and its sender cannot fix it. The service cannot serve this
  // entity until an operator fixes its configuration; other entities answer. Like DB_TOPIC_RECREATED, not
  // retriable (no Retry-After): waiting alone does not help.
  DB_ENTITY_CONFIG_INVALID: 503,
  DB_TOPIC_RECREATED: 503,
  DB_CHECKPOINT_BEHIND: 503,
  DB_DEPENDENCY_UNAVAILABLE: 503,
  DB_TIMEOUT: 504,
  DB_INTERNAL: 500,
};

export const httpStatusOf = (code: ErrorCode): number => STATUS[code];

/** RFC 9457 problem details, with our stable code and the field / rule / stage of the refusal. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: ErrorCode;
  requestId?: string;
  [extension: string]: unknown;
}

export function toProblem(error: DeltabrokerError, requestId: string, instance: string): Problem {
  return {
    type: `https://deltabroker.dev/problems/${error.code.toLowerCase().replace(/_/g, '-')}`,
    title: ERROR_CATALOGUE[error.code].title,
    status: STATUS[error.code],
    detail: error.message,
    instance,
    code: error.code,
    requestId,
    ...error.details,
  };
}

/** Fastify's own client errors (bad JSON, body too large, wrong media type) in our catalogue. */
export function fromFrameworkError(error: unknown): DeltabrokerError {
  if (isDeltabrokerError(error)) return error;
  const e = error as { statusCode?: number; code?: string; message?: string };
  switch (e.statusCode) {
    case 413:
      return new DeltabrokerError('DB_PAYLOAD_TOO_LARGE', 'the request body is larger than allowed', { field: 'body', rule: 'max-bytes', stage: 'http' });
    case 415:
      return new DeltabrokerError('DB_UNSUPPORTED_MEDIA_TYPE', 'the body must be sent as application/json', {
        field: 'Content-Type',
        rule: 'media-type',
        stage: 'http',
      });
    case 400:
      return new DeltabrokerError('DB_BAD_REQUEST', badRequestMessage(e.code, e.message), { field: 'body', rule: 'json', stage: 'http' });
    default:
      return new DeltabrokerError('DB_INTERNAL', 'internal error', { stage: 'http' }, { cause: error });
  }
}

function badRequestMessage(code: string | undefined, message: string | undefined): string {
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'the JSON body is empty';
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || message?.includes('JSON')) return 'the body is not valid JSON';
  return message ?? 'bad request';
}
