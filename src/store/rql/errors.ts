import { DeltabrokerError } from '../../errors';

export const RQL_STAGE = 'read';

/** A few characters of the query around `pos`, for error messages. */
function near(query: string, pos: number): string {
  const from = Math.max(0, pos - 12);
  const to = Math.min(query.length, pos + 12);
  return `${from > 0 ? '…' : ''}${query.slice(from, to)}${to < query.length ? '…' : ''}`;
}

/** DB_BAD_REQUEST naming the 0-based position in the query. */
export function rqlSyntaxError(query: string, pos: number, message: string, rule = 'syntax'): DeltabrokerError {
  return new DeltabrokerError('DB_BAD_REQUEST', `RQL syntax error at position ${pos}: ${message} (near ${JSON.stringify(near(query, pos))})`, {
    field: 'payload',
    rule,
    stage: RQL_STAGE,
    position: pos,
  });
}

/** DB_VALIDATION about a field of the query (unknown field, type mismatch, unsupported operator). */
export function rqlFieldError(field: string, pos: number, rule: string, message: string): DeltabrokerError {
  return new DeltabrokerError('DB_VALIDATION', `${message} (at position ${pos})`, { field, rule, stage: RQL_STAGE, position: pos });
}

/** DB_FORBIDDEN: the caller's roles may not read the field it names. */
export function rqlForbiddenField(field: string, pos: number, usage: string): DeltabrokerError {
  return new DeltabrokerError('DB_FORBIDDEN', `field "${field}" may not be read by the caller's roles, so it cannot be used in ${usage} (at position ${pos})`, {
    field,
    rule: 'unreadable-field',
    stage: RQL_STAGE,
    position: pos,
  });
}
