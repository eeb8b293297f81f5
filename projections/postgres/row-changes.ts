/**
 * Folds the events of one batch into at most one change per record, so each record is touched by one
 * statement (a multi-row upsert may not touch a row twice) and the result is what applying the events one by
 * one would give. Every event carries its record's whole state, so the document is the newest event's payload:
 * - `replace`: the batch holds the record's create (or an update after its delete): the row becomes that document;
 * - `merge`: only updates: the document goes over the stored one (a field it does not carry keeps its value);
 * - `delete`: the record's last event deletes it.
 * An event whose version is not above the fold's version so far is a duplicate and is ignored.
 */
import type { ProjectedEvent, LogRecord } from '../../src/log';
import type { FieldColumn, ProjectionTable } from './table-schema';

export type ChangeMode = 'replace' | 'merge' | 'delete';

export interface RowChange {
  readonly mode: ChangeMode;
  /** Key column values, in key order: strings, or decimal strings for integer keys. */
  readonly key: readonly string[];
  /** The document to write (replace) or to merge over the stored one (merge); empty for delete. */
  readonly doc: Record<string, unknown>;
  readonly version: number;
  readonly eventId: string;
  /** `topic/partition/offset` of the last event folded in. */
  readonly position: string;
  /** When the pipeline recorded the last event, as an ISO timestamp. */
  readonly updatedAt: string;
}

export interface SkippedRecord {
  readonly record: LogRecord<ProjectedEvent>;
  readonly reason: 'payload-not-an-object' | 'key-not-mappable';
}

export interface FoldResult {
  readonly changes: RowChange[];
  /** Events that cannot be projected (logged and passed over by the projector; a replay meets them again). */
  readonly skipped: SkippedRecord[];
}

/** A record's change while the batch is folded: its document is the fold's own copy, merged into in place. */
interface Folding {
  mode: ChangeMode;
  key: readonly string[];
  doc: Record<string, unknown>;
  last: LogRecord<ProjectedEvent>;
}

/**
 * The change `operation` starts, given the mode of the record's change so far in the batch (undefined before its
 * first event), or undefined when it goes on with that change (an update after a create or an update).
 */
function startedChange(operation: ProjectedEvent['operation'], previous: ChangeMode | undefined): ChangeMode | undefined {
  if (operation === 'delete') return 'delete';
  if (operation === 'create' || previous === 'delete') return 'replace';
  return previous === undefined ? 'merge' : undefined;
}

/**
 * Each record's change so far, event by event: the mode its events give (`startedChange`) and its newest event. Events
 * carry their record's whole state (EntityEvent.payload: the stored fields with the accepted ones written over them),
 * so a record's change is made from its newest event and only that payload is parsed; the search projector reads a
 * batch the same way. A batch is folded in one go (foldRecordChanges); a replay folds its runs as it reads them, so a
 * record's superseded events are not kept.
 */
export class ChangeFold {
  private readonly byKey = new Map<string, { mode: ChangeMode; last: LogRecord<ProjectedEvent> }>();

  /** The next event, in offset order. */
  add(record: LogRecord<ProjectedEvent>): void {
    const event = record.value;
    const previous = this.byKey.get(event.key);
    if (previous && event.version <= previous.last.value.version) return;
    const started = startedChange(event.operation, previous?.mode);
    if (started !== undefined) this.byKey.set(event.key, { mode: started, last: record });
    else if (previous) previous.last = record;
  }

  /**
   * The records' changes, each from its newest payload; `unusable` holds the record keys whose newest event cannot be
   * projected (not a JSON object, or a key that does not map): their events must be folded one by one without it.
   */
  changes(table: ProjectionTable): { changes: RowChange[]; unusable: Set<string> } {
    const foldings: Folding[] = [];
    const unusable = new Set<string>();
    for (const [recordKey, { mode, last }] of this.byKey) {
      const payload = parsePayload(last.value.payload);
      const key = payload === undefined ? undefined : keyValuesOf(table, recordKey, payload);
      if (payload === undefined || key === undefined) unusable.add(recordKey);
      else foldings.push({ mode, key, doc: mode === 'delete' ? {} : withKeyFields(table, payload, key), last });
    }
    return { changes: changesOf(foldings), unusable };
  }
}

/**
 * A batch's events as one change per record (ChangeFold). When a record's newest event cannot be projected, its
 * events are folded one by one (`foldInOrder`), as if that event were not there.
 */
export function foldRecordChanges(table: ProjectionTable, records: readonly LogRecord<ProjectedEvent>[]): FoldResult {
  const fold = new ChangeFold();
  for (const record of records) fold.add(record);
  const { changes, unusable } = fold.changes(table);
  if (unusable.size === 0) return { changes, skipped: [] };
  const inOrder = foldInOrder(
    table,
    records.filter((r) => unusable.has(r.value.key)),
  );
  return { changes: [...changes, ...changesOf(inOrder.foldings)], skipped: inOrder.skipped };
}

/** The events applied one by one: each payload parsed, an update's fields merged over the document so far. */
function foldInOrder(table: ProjectionTable, records: readonly LogRecord<ProjectedEvent>[]): { foldings: Folding[]; skipped: SkippedRecord[] } {
  const byKey = new Map<string, Folding>();
  const skipped: SkippedRecord[] = [];
  for (const record of records) {
    const event = record.value;
    const payload = parsePayload(event.payload);
    if (payload === undefined) {
      skipped.push({ record, reason: 'payload-not-an-object' });
      continue;
    }
    const key = keyValuesOf(table, event.key, payload);
    if (key === undefined) {
      skipped.push({ record, reason: 'key-not-mappable' });
      continue;
    }
    const previous = byKey.get(event.key);
    if (previous && event.version <= previous.last.value.version) continue;
    const started = startedChange(event.operation, previous?.mode);
    if (started !== undefined) byKey.set(event.key, { mode: started, key, doc: started === 'delete' ? {} : withKeyFields(table, payload, key), last: record });
    else if (previous) {
      mergeInto(previous.doc, payload);
      previous.key = key;
      previous.last = record;
    }
  }
  return { foldings: [...byKey.values()], skipped };
}

function changesOf(foldings: readonly Folding[]): RowChange[] {
  const changes: RowChange[] = [];
  const isoTime = lastIsoTime();
  for (const { mode, key, doc, last } of foldings) {
    const event = last.value;
    const position = `${last.topic}/${last.partition}/${last.offset}`;
    changes.push({ mode, key, doc, version: event.version, eventId: event.eventId, position, updatedAt: isoTime(event.recordedAt) });
  }
  return changes;
}

/**
 * `new Date(ms).toISOString()`, remembering the last answer: the pipeline stamps a round's events with one
 * `recordedAt`, so a batch's events mostly share it, and the conversion was a third of what parsing the
 * payloads cost the fold.
 */
function lastIsoTime(): (ms: number) => string {
  let lastMs = Number.NaN;
  let lastIso = '';
  return (ms) => {
    if (ms !== lastMs) {
      lastIso = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastIso;
  };
}

/**
 * An update's fields over the fold's document, as `{ ...doc, ...payload }` would give, without copying the
 * document per event. A field named `__proto__` stays a field (assignment would set the prototype).
 */
function mergeInto(doc: Record<string, unknown>, payload: Readonly<Record<string, unknown>>): void {
  for (const name of Object.keys(payload)) {
    if (name === '__proto__') Object.defineProperty(doc, name, { value: payload[name], enumerable: true, writable: true, configurable: true });
    else doc[name] = payload[name];
  }
}

/**
 * The document carries its key fields even when the payload left them out (the delta's key names them). The
 * payload was parsed for this fold alone, so it becomes the document itself instead of a copy.
 */
function withKeyFields(table: ProjectionTable, payload: Record<string, unknown>, key: readonly string[]): Record<string, unknown> {
  table.keyColumns.forEach((column, i) => {
    const value = key[i] as string;
    if (payload[column.name] === undefined) payload[column.name] = column.type === 'integer' && Number.isSafeInteger(Number(value)) ? Number(value) : value;
  });
  return payload;
}

/** The payload as an object ({} for a delete), or undefined when it is not a JSON object. */
function parsePayload(payload: string | null): Record<string, unknown> | undefined {
  if (payload === null) return {};
  try {
    const parsed: unknown = JSON.parse(payload);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const INTEGER_KEY = /^-?[0-9]{1,18}$/;

/**
 * The key column values of a record: from the payload's key fields where present (the pipeline checked they
 * agree with the record key), else from the record key, which is the key field values joined with ':'. A
 * composite key whose record key does not split into exactly one part per key field, or an integer key
 * that is not an integer, cannot be mapped: undefined.
 */
export function keyValuesOf(table: ProjectionTable, recordKey: string, payload: Readonly<Record<string, unknown>>): string[] | undefined {
  const columns = table.keyColumns;
  if (columns.length === 1) return singleKeyValueOf(columns[0] as FieldColumn, recordKey, payload);
  const fromPayload = columns.map((c) => payload[c.name]);
  let parts: unknown[];
  if (fromPayload.every((v) => typeof v === 'string' || typeof v === 'number')) parts = fromPayload;
  else if (columns.length === 1) parts = [recordKey];
  else {
    parts = recordKey.split(':');
    if (parts.length !== columns.length) return undefined;
  }
  const values = parts.map(String);
  return columns.every((c, i) => c.type !== 'integer' || INTEGER_KEY.test(values[i] as string)) ? values : undefined;
}

/** `keyValuesOf` for a key of one field, the usual case, without its intermediate arrays (it runs per event). */
function singleKeyValueOf(column: FieldColumn, recordKey: string, payload: Readonly<Record<string, unknown>>): string[] | undefined {
  const field = payload[column.name];
  const value = typeof field === 'string' || typeof field === 'number' ? String(field) : recordKey;
  return column.type !== 'integer' || INTEGER_KEY.test(value) ? [value] : undefined;
}
