/**
 * The one error catalogue. Every refusal the service makes carries a stable `code` from here; the HTTP edge
 * (src/http/problem.ts) is the only place that turns a code into a status. Retired codes are never reused.
 */
export const ERROR_CATALOGUE = {
  DB_BAD_REQUEST: { title: 'The request is malformed', retriable: false },
  DB_VALIDATION: { title: 'A field breaks a rule', retriable: false },
  DB_PAYLOAD_TOO_LARGE: { title: 'The payload is larger than allowed', retriable: false },
  DB_UNSUPPORTED_MEDIA_TYPE: { title: 'The body must be application/json', retriable: false },
  DB_HEADERS_TOO_LARGE: { title: 'The request headers are larger than allowed', retriable: false },
  DB_UNAUTHENTICATED: { title: 'A valid Bearer token is required', retriable: false },
  DB_FORBIDDEN: { title: 'The caller may not do this', retriable: false },
  DB_NOT_FOUND: { title: 'No such resource', retriable: false },
  DB_METHOD_NOT_ALLOWED: { title: 'Method not allowed on this route', retriable: false },
  DB_CONFLICT: { title: 'The request conflicts with the current state', retriable: false },
  DB_UNKNOWN_METHOD: { title: 'Unknown encryption method', retriable: false },
  DB_UNKNOWN_KEY: { title: 'Unknown or disabled key', retriable: false },
  DB_KEY_VERSION_DISABLED: { title: 'The key version is below the minimum allowed', retriable: false },
  DB_SESSION_INVALID: { title: 'Unknown, expired or exhausted session', retriable: false },
  DB_DECRYPT_FAILED: { title: 'The ciphertext could not be decrypted', retriable: false },
  DB_SUBJECT_ERASED: { title: 'The data subject was erased; its key is destroyed', retriable: false },
  DB_HSM_UNAVAILABLE: { title: 'The hardware security module is not available', retriable: true },
  /**
   * The entity's configuration (a file or the tenant API's answer) breaks a rule and is refused alone, until an
   * operator fixes it. Not retriable: repeating the request, or a delta, changes nothing until then.
   */
  DB_ENTITY_CONFIG_INVALID: { title: "The entity's configuration is invalid; an operator must fix it", retriable: false },
  DB_TOPIC_RECREATED: { title: 'A topic no longer holds the position its consumer reached (deleted and created again)', retriable: false },
  /**
   * A projector's stored checkpoint lies behind what it had applied: its database lost committed transactions
   * (restored to an earlier point, failed over to a replica that trailed). The projector reads the partition again
   * from the checkpoint; nothing is written by the round that found it.
   */
  DB_CHECKPOINT_BEHIND: { title: "A projection's checkpoint is behind what it had applied (its database lost transactions)", retriable: true },
  DB_DEPENDENCY_UNAVAILABLE: { title: 'A backing service is not available', retriable: true },
  DB_TIMEOUT: { title: 'The operation did not finish in time', retriable: true },
  DB_INTERNAL: { title: 'Internal error', retriable: true },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorDetails {
  /** The request field the refusal is about, as a JSON pointer-ish path (`dispatch.method`). */
  field?: string;
  /** The rule that was broken, e.g. `required`, `enum`, `max-bytes`. */
  rule?: string;
  /** The processing stage that refused (`http`, `dispatch`, a pipeline stage name, …). */
  stage?: string;
  [extra: string]: unknown;
}

export class DeltabrokerError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeltabrokerError';
    this.code = code;
    this.details = details;
  }

  get retriable(): boolean {
    return ERROR_CATALOGUE[this.code].retriable;
  }
}

export const isDeltabrokerError = (e: unknown): e is DeltabrokerError => e instanceof DeltabrokerError;
