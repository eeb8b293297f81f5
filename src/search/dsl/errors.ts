/** The refusals of a search body. Every one names the place in the request (`payload.query.bool.must[0]…`). */
import { DeltabrokerError } from '../../errors';

const details = (field: string, rule: string) => ({ field, rule, stage: 'search' });

/** A clause or parameter outside the supported subset. */
export const unsupported = (path: string, what: string): DeltabrokerError =>
  new DeltabrokerError('DB_VALIDATION', `${what} is not supported by this search index (at ${path})`, details(path, 'unsupported-clause'));

/** A value of the wrong shape or type. */
export const invalid = (path: string, rule: string, message: string): DeltabrokerError =>
  new DeltabrokerError('DB_VALIDATION', `${message} (at ${path})`, details(path, rule));

export const malformed = (path: string, message: string): DeltabrokerError =>
  new DeltabrokerError('DB_BAD_REQUEST', `${message} (at ${path})`, details(path, 'type'));

export const unknownField = (path: string, field: string): DeltabrokerError =>
  new DeltabrokerError('DB_VALIDATION', `unknown field ${JSON.stringify(field)} (at ${path})`, { ...details(path, 'unknown-field'), name: field });

export const forbiddenField = (path: string, field: string): DeltabrokerError =>
  new DeltabrokerError('DB_FORBIDDEN', `field ${JSON.stringify(field)} may not be read by the caller (at ${path})`, {
    ...details(path, 'field-not-readable'),
    name: field,
  });

/** A clause the caller may not use while some fields are hidden from it (it could reveal them). */
export const forbiddenClause = (path: string, what: string): DeltabrokerError =>
  new DeltabrokerError('DB_FORBIDDEN', `${what} may not be used by a caller who cannot read every field (at ${path})`, details(path, 'clause-not-allowed'));

export const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `"price:desc"` is the sort syntax of the URL parameter; in a body the engines read it as a field of that
 * name. Refused, and as DB_FORBIDDEN when `checkBase` finds the field before the colon hidden from the caller.
 */
export function refuseColonSort(name: string, path: string, checkBase: (base: string) => void): void {
  const colon = name.indexOf(':');
  if (colon < 0) return;
  const base = name.slice(0, colon);
  checkBase(base);
  throw unsupported(path, `the sort string "${name}" (URL syntax; write { "${base}": "${name.slice(colon + 1)}" })`);
}
