/**
 * Result rows → JSON documents. pg returns bigint as a string and timestamptz as a Date; a document carries
 * integers as numbers (as strings only beyond 2^53, so no digit is lost) and timestamps as ISO 8601 strings.
 */
import type { CompiledRql } from './compiler';

function decodeCell(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (type === 'integer' || type === 'bigint') {
    const n = typeof v === 'string' ? Number(v) : v;
    return typeof n === 'number' && Number.isSafeInteger(n) ? n : String(v);
  }
  if (type === 'timestamp' || type === 'timestamptz') return v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();
  return v;
}

/** One row of `compiled.text` as a document holding the selected fields (and meta columns) in order. */
export function decodeRow(row: Readonly<Record<string, unknown>>, compiled: Pick<CompiledRql, 'columns'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const col of compiled.columns) {
    Object.defineProperty(out, col.name, { value: decodeCell(col.type, row[col.name]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The count of `compiled.countText` (a bigint, returned by pg as a string) as a number. */
export const decodeCount = (row: Readonly<Record<string, unknown>> | undefined): number => Number(row?.count ?? 0);

/**
 * The total that a page of `compiled.text` implies without a count query: a page that came back short of its
 * limit is the end of the result, so the total is its offset plus its rows. An empty page past the first says
 * nothing of the rows before it, and a full page nothing of the rows after it: undefined, count them.
 */
export function totalFromPage(compiled: Pick<CompiledRql, 'limit' | 'offset'>, rows: number): number | undefined {
  if (rows >= compiled.limit || (rows === 0 && compiled.offset > 0)) return undefined;
  return compiled.offset + rows;
}
