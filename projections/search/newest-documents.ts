/**
 * What a search projection writes for a batch, live or in a replay: each record's newest event, the one of the
 * highest version (the index fences older versions anyway, so an older event after it in the log changes nothing),
 * as an upsert of the document it carries (events carry their record's whole state, EntityEvent.payload) or a delete.
 */
import type { ProjectedEvent } from '../../src/log';
import type { SearchDocument } from '../../src/search';

/** Holds `event` as the newest of its record (`id`) unless an event of a higher version is held. */
export function keepNewest<E extends ProjectedEvent>(newest: Map<string, E>, id: string, event: E): void {
  if ((newest.get(id)?.version ?? -1) < event.version) newest.set(id, event);
}

/** The document a record's newest event puts in the index, or undefined when the event deletes the record. */
export function documentOf(event: ProjectedEvent): SearchDocument | undefined {
  return event.payload === null ? undefined : { id: event.key, source: JSON.parse(event.payload) as Record<string, unknown>, version: event.version };
}
