import type { EntityEvent } from '../../../src/log';
import type { Doc } from './delta-stream';

export interface LoggedEvent {
  value: EntityEvent;
  partition: number;
  offset: string;
}

/** Events in log order: per partition by offset (per-key order lives within one partition). */
export function inLogOrder(events: LoggedEvent[]): LoggedEvent[] {
  return [...events].sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}

export interface FoldedRecord {
  version: number;
  doc: Doc;
}

/**
 * A fresh fold of a persistence topic, independent of the projector: each event carries the record's whole state,
 * so a record is its last event's payload and version, and a delete removes it.
 */
export function foldEvents(events: LoggedEvent[]): Map<string, FoldedRecord> {
  const records = new Map<string, FoldedRecord>();
  for (const { value } of inLogOrder(events)) {
    if (value.operation === 'delete') records.delete(value.key);
    else records.set(value.key, { version: Number(value.version), doc: JSON.parse(value.payload ?? '{}') as Doc });
  }
  return records;
}

/** Differences between a projected table and the fold, as readable lines (empty when they are equal). */
export function diffProjection(folded: Map<string, FoldedRecord>, rows: { key: string; version: number; doc: Doc }[], limit = 20): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    seen.add(row.key);
    const expected = folded.get(row.key);
    if (!expected) problems.push(`${row.key}: in the table (v${row.version}) but deleted or absent in the log`);
    else if (expected.version !== row.version) problems.push(`${row.key}: table v${row.version}, log v${expected.version}`);
    else if (stableJson(expected.doc) !== stableJson(row.doc)) problems.push(`${row.key}: table ${stableJson(row.doc)} != log ${stableJson(expected.doc)}`);
  }
  for (const key of folded.keys()) if (!seen.has(key)) problems.push(`${key}: in the log (v${folded.get(key)?.version}) but not in the table`);
  return problems.slice(0, limit);
}

/** JSON with object keys sorted, so documents compare by content. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
