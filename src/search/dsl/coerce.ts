/** Coerces a request value to a field's type, as Elasticsearch does for `term`, `terms` and `range`. */
import { isIsoTimestamp, withZone } from '../index-definition';
import type { FieldRef, Scalar } from './ast';
import { invalid } from './errors';

export function coerceValue(field: FieldRef, value: unknown, path: string): Scalar {
  switch (field.type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      break;
    case 'integer':
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n === 'number' && Number.isFinite(n)) return n;
      break;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      break;
    case 'timestamp':
      // Epoch milliseconds or ISO 8601, normalised to ISO with an offset; date math (`now-1d`) is not supported.
      if (typeof value === 'number' && Number.isFinite(value)) return new Date(value).toISOString();
      if (isIsoTimestamp(value)) return new Date(withZone(value)).toISOString();
      throw invalid(path, 'date', `${JSON.stringify(value)} is not an ISO 8601 date or epoch milliseconds`);
  }
  throw invalid(path, 'type', `${JSON.stringify(value)} is not a valid ${field.type} value for field ${field.name}`);
}

export function requireString(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalid(path, 'type', 'expected a string');
}

export function requireBoost(value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw invalid(path, 'type', 'boost must be a non-negative number');
}

export function requireBoolean(value: unknown, path: string): boolean {
  if (typeof value === 'boolean') return value;
  throw invalid(path, 'type', 'expected true or false');
}
