/**
 * What a search projection writes for a batch, live or in a replay: each record's newest event, the one of the
 * highest version (the index fences older versions anyway, so an older event after it in the log changes nothing),
 * as an upsert of the document it carries (events carry their record's whole state, EntityEvent.payload) or a delete.
 *
 * An event whose document the index refuses (a payload that is not a JSON object, a declared field of another type,
 * U+0000) is passed over, as the table projection passes over an event it cannot project: the record's newest event
 * the index takes is written instead. Retrying it could never succeed, and would stop every other record of its round.
 * The index checks every document it is given, so a projection writes its documents unchecked and checks them only
 * once a write was refused (`isDocumentRefusal`): checking each beforehand cost about as much as parsing it.
 */
import type { LogRecord, ProjectedEvent } from '../../src/log';
import { documentRefusal, type IndexDefinition, type SearchDocument } from '../../src/search';

/** Holds `event` as the newest of its record (`id`) unless an event of a higher version is held. */
export function keepNewest<E extends ProjectedEvent>(newest: Map<string, E>, id: string, event: E): void {
  if ((newest.get(id)?.version ?? -1) < event.version) newest.set(id, event);
}

/** What an event writes into an index: the document it carries, a delete of its record, or why the index refuses it. */
export type IndexWrite =
  | { readonly kind: 'upsert'; readonly doc: SearchDocument }
  | { readonly kind: 'delete'; readonly id: string }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * The write of `event`; with `index`, checked as the index will check it (documentRefusal). Without, only a payload
 * that is not a JSON object is refused: the index refuses the rest when it is written.
 */
export function indexWriteOf(event: ProjectedEvent, index?: IndexDefinition): IndexWrite {
  if (event.payload === null) return { kind: 'delete', id: event.key };
  let source: unknown;
  try {
    source = JSON.parse(event.payload);
  } catch {
    return { kind: 'refused', reason: 'the payload is not JSON' };
  }
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return { kind: 'refused', reason: 'the payload is not a JSON object' };
  const doc = { id: event.key, source: source as Record<string, unknown>, version: event.version };
  const refusal = index && documentRefusal(index, doc);
  return refusal ? { kind: 'refused', reason: `${refusal.details.field} (${refusal.details.rule}): ${refusal.message}` } : { kind: 'upsert', doc };
}

export interface NewestIndexable<R> {
  /** The write of the record's newest event the index takes, or undefined when it takes none of them. */
  readonly write: Exclude<IndexWrite, { kind: 'refused' }> | undefined;
  /** The newer events passed over, newest first, and why. */
  readonly passedOver: readonly { readonly record: R; readonly reason: string }[];
}

/** Of one record's events (in any order), the newest the index takes: where the record's newest event is refused. */
export function newestIndexable<R extends LogRecord<ProjectedEvent>>(records: readonly R[], index: IndexDefinition): NewestIndexable<R> {
  const passedOver: { record: R; reason: string }[] = [];
  for (const record of [...records].sort((a, b) => b.value.version - a.value.version)) {
    const write = indexWriteOf(record.value, index);
    if (write.kind !== 'refused') return { write, passedOver };
    passedOver.push({ record, reason: write.reason });
  }
  return { write: undefined, passedOver };
}
