/**
 * RQL literals: type prefixes (`string:`, `number:`, `date:`, `boolean:`), bare `true`/`false`/`null`,
 * percent-decoding, and ISO 8601 dates (UTC unless an offset is given).
 */
import type { RqlValue } from './ast';
import { rqlSyntaxError } from './errors';
import { percentDecode } from './tokenizer';

export const TYPE_PREFIX = /^(string|number|date|boolean):/;
export const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseValue(raw: string, pos: number, query: string): RqlValue {
  const prefix = TYPE_PREFIX.exec(raw);
  if (prefix === null) {
    if (raw === 'true' || raw === 'false') return { kind: 'value', type: 'boolean', value: raw === 'true', text: raw, pos };
    if (raw === 'null') return { kind: 'value', type: 'null', value: null, text: raw, pos };
    const text = percentDecode(raw, pos, query);
    return { kind: 'value', type: 'auto', value: text, text, pos };
  }
  const type = prefix[1] as 'string' | 'number' | 'date' | 'boolean';
  const at = pos + prefix[0].length;
  const text = percentDecode(raw.slice(prefix[0].length), at, query);
  switch (type) {
    case 'string':
      return { kind: 'value', type, value: text, text, pos };
    case 'number': {
      const n = Number(text);
      if (!NUMBER.test(text) || !Number.isFinite(n)) throw rqlSyntaxError(query, at, `${JSON.stringify(text)} is not a number`, 'number');
      return { kind: 'value', type, value: n, text, pos };
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw rqlSyntaxError(query, at, `${JSON.stringify(text)} is not true or false`, 'boolean');
      return { kind: 'value', type, value: text === 'true', text, pos };
    case 'date': {
      const d = parseDate(text);
      if (d === undefined) {
        throw rqlSyntaxError(
          query,
          at,
          `${JSON.stringify(text)} is not an ISO 8601 date (YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]; UTC when no offset)`,
          'date',
        );
      }
      return { kind: 'value', type, value: d, text, pos };
    }
  }
}

/** ISO 8601 date or date-time; without an offset it is UTC (never the server's time zone). */
export function parseDate(text: string): Date | undefined {
  const m = ISO_DATE.exec(text);
  if (m === null) return undefined;
  const [, day, time, zone] = m;
  const iso = `${day}T${time ?? '00:00'}${zone === undefined ? 'Z' : zone.toUpperCase()}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const d = new Date(ms);
  // Date.parse rolls 2024-02-30 over to March; refuse days that do not exist.
  if (zone === undefined || zone.toUpperCase() === 'Z') {
    if (d.toISOString().slice(0, 10) !== day) return undefined;
  }
  return d;
}
