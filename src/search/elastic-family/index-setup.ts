/**
 * `ensureIndex` on an Elasticsearch-family engine. A live name is an alias on a concrete generation index (see
 * shadow-aliases.ts); the first generation's name is fixed (`<name>__g0`), so instances starting together race
 * to create the same index and the losers find it there. A definition that only drops fields updates the
 * mapping in place. One that adds a field or changes a field's type cannot (the engine refuses type changes,
 * and `dynamic: false` leaves documents already stored unindexed for a new field), so the index is rebuilt: a
 * new generation with the new mappings, every document copied with its version, the alias moved in one
 * step, then a second copy catches what was written to the old generation meanwhile (versions keep the
 * newest), and the old generation is deleted. A delete made during the rebuild can be undone by the second copy.
 */
import { DeltabrokerError } from '../../errors';
import type { IndexDefinition } from '../search-port';
import { engineCall, fromEngineError, isAlreadyExists } from './engine-errors';
import { EngineResponseError, pathOf, type EngineTransport } from './engine-transport';
import { definitionFromMappings, mappingsFor } from './mappings';
import { copyDocuments } from './document-copy';
import { concreteIndices, createGeneration, moveAlias } from './shadow-aliases';

const AT = { stage: 'search-index', field: 'index' };

export type IndexSettings = Record<string, unknown>;

/** The definition stored in the mapping's `_meta` of the index (or alias) `target`; undefined when absent. */
export async function storedDefinition(transport: EngineTransport, target: string): Promise<IndexDefinition | undefined> {
  try {
    const { body } = await transport.request<Record<string, { mappings?: unknown }>>({ method: 'GET', path: `${pathOf(target)}/_mapping` });
    return definitionFromMappings(Object.values(body)[0]?.mappings);
  } catch (error) {
    if (error instanceof EngineResponseError && error.status === 404) return undefined;
    throw fromEngineError(error, AT);
  }
}

async function createFirst(transport: EngineTransport, target: string, definition: IndexDefinition, settings?: IndexSettings): Promise<boolean> {
  try {
    await transport.request({
      method: 'PUT',
      path: pathOf(`${target}__g0`),
      body: { mappings: mappingsFor(definition), aliases: { [target]: {} }, ...(settings === undefined ? {} : { settings }) },
    });
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    throw fromEngineError(error, AT);
  }
}

/** A field that is new, or whose mapping changes (type, or analysed text to ciphertext keyword and back). */
const needsRebuild = (stored: IndexDefinition, wanted: IndexDefinition): boolean =>
  wanted.fields.some((field) => {
    const before = stored.fields.find((f) => f.name === field.name);
    return before?.type !== field.type || (before.sensitive === true) !== (field.sensitive === true);
  });

async function rebuild(transport: EngineTransport, target: string, definition: IndexDefinition, settings?: IndexSettings): Promise<void> {
  const [old, ...more] = await concreteIndices(transport, target);
  if (old === undefined || more.length > 0) {
    throw new DeltabrokerError('DB_CONFLICT', `search index ${target} stands for ${more.length + 1} indices; cannot migrate it`, AT);
  }
  const generation = await createGeneration(transport, target, { mappings: mappingsFor(definition), ...(settings === undefined ? {} : { settings }) });
  await copyDocuments(transport, target, generation);
  if (old === target) {
    // A concrete index of the live name (made before names were aliases) can only be replaced by deleting it.
    await moveAlias(transport, target, generation);
    return;
  }
  await engineCall(
    () =>
      transport.request({
        method: 'POST',
        path: '/_aliases',
        body: { actions: [{ remove: { index: old, alias: target } }, { add: { index: generation, alias: target } }] },
      }),
    AT,
  );
  await copyDocuments(transport, old, generation);
  await engineCall(() => transport.request({ method: 'DELETE', path: pathOf(old) }), AT);
}

export async function ensureEngineIndex(transport: EngineTransport, target: string, definition: IndexDefinition, settings?: IndexSettings): Promise<void> {
  let stored = await storedDefinition(transport, target);
  if (stored === undefined) {
    if (await createFirst(transport, target, definition, settings)) return;
    stored = await storedDefinition(transport, target);
  }
  if (stored !== undefined && needsRebuild(stored, definition)) await rebuild(transport, target, definition, settings);
  else await engineCall(() => transport.request({ method: 'PUT', path: `${pathOf(target)}/_mapping`, body: mappingsFor(definition) }), AT);
}
