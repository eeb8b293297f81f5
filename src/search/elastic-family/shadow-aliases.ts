/**
 * Shadow builds. A shadow is an alias (the shadow's name) on a new concrete index of its own generation
 * (`<shadow>__g<time><random>`), so the next rebuild's shadow never collides with the index a previous swap made
 * live. The swap is one `_aliases` request, which the engine applies atomically: the shadow alias is removed,
 * the live name becomes an alias of the shadow's index, and the index (or indices) the live name stood for are
 * deleted (`remove_index` also turns a live name that was a concrete index into an alias). Callers pass
 * physical names (with the adapter's prefix).
 */
import { randomBytes } from 'node:crypto';
import { DeltabrokerError } from '../../errors';
import { engineCall, fromEngineError, isAlreadyExists, isIndexOrAliasMissing } from './engine-errors';
import { copyDocuments } from './document-copy';
import { EngineResponseError, pathOf, type EngineTransport } from './engine-transport';

const STAGE = 'search-index';
const AT = { stage: STAGE, field: 'index' };

/** The concrete indices a name stands for: itself when it is an index, the indices of an alias, none when absent. */
export async function concreteIndices(transport: EngineTransport, name: string): Promise<string[]> {
  try {
    return Object.keys((await transport.request<Record<string, unknown>>({ method: 'GET', path: pathOf(name) })).body);
  } catch (error) {
    if (error instanceof EngineResponseError && error.status === 404) return [];
    throw fromEngineError(error, AT);
  }
}

export async function dropIndices(transport: EngineTransport, name: string): Promise<void> {
  const indices = await concreteIndices(transport, name);
  if (indices.length === 0) return;
  // An index gone already (a concurrent drop, or this request's first attempt before the client sent it again)
  // is not a failure, and does not stop the others' deletion.
  await engineCall(() => transport.request({ method: 'DELETE', path: pathOf(indices), query: { ignore_unavailable: 'true' } }), AT);
}

export interface NewShadow {
  readonly name: string;
  readonly mappings: unknown;
  readonly settings?: Record<string, unknown>;
  /** An index (or alias) whose documents the shadow starts with. */
  readonly copyOf?: string;
}

/** A new concrete index for `name`, created with its mappings and an alias: answers its name. */
export async function createGeneration(transport: EngineTransport, name: string, body: Record<string, unknown>): Promise<string> {
  const generation = `${name}__g${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  try {
    await transport.request({ method: 'PUT', path: pathOf(generation), body });
  } catch (error) {
    // The name is this call's own, so an index already under it is the one a retried request made.
    if (!isAlreadyExists(error)) throw fromEngineError(error, AT);
  }
  return generation;
}

export async function createShadowIndex(transport: EngineTransport, shadow: NewShadow): Promise<void> {
  await dropIndices(transport, shadow.name);
  const generation = await createGeneration(transport, shadow.name, {
    mappings: shadow.mappings,
    aliases: { [shadow.name]: {} },
    ...(shadow.settings === undefined ? {} : { settings: shadow.settings }),
  });
  const copyOf = shadow.copyOf;
  if (copyOf === undefined || (await concreteIndices(transport, copyOf)).length === 0) return;
  // The copy writes through an alias of this generation alone: once a later build of the same shadow deletes
  // the generation, the copy's writes fail, rather than land in the later build through the shadow's name.
  const copyAlias = `${generation}__copy`;
  const aliasAction = (action: 'add' | 'remove') => ({
    method: 'POST' as const,
    path: '/_aliases',
    body: { actions: [{ [action]: { index: generation, alias: copyAlias } }] },
  });
  await engineCall(() => transport.request(aliasAction('add')), AT);
  await copyDocuments(transport, copyOf, copyAlias, true);
  await engineCall(() => transport.request(aliasAction('remove')), AT);
}

/** Points `name` at `generation` in one step, removing whatever indices `name` stood for before. */
export async function moveAlias(transport: EngineTransport, name: string, generation: string, removeAlias?: string): Promise<void> {
  const replaced = (await concreteIndices(transport, name)).filter((index) => index !== generation);
  try {
    await transport.request({
      method: 'POST',
      path: '/_aliases',
      body: {
        actions: [
          ...(removeAlias === undefined ? [] : [{ remove: { index: generation, alias: removeAlias } }]),
          { add: { index: generation, alias: name } },
          ...replaced.map((index) => ({ remove_index: { index } })),
        ],
      },
    });
  } catch (error) {
    // The clients send a request again when its answer is late: one whose first attempt was applied finds the
    // indices and alias it removes gone. The move is done when the engine now shows it done.
    if (isIndexOrAliasMissing(error) && (await aliasMoved(transport, name, generation, removeAlias))) return;
    throw fromEngineError(error, AT);
  }
}

async function aliasMoved(transport: EngineTransport, name: string, generation: string, removeAlias: string | undefined): Promise<boolean> {
  const now = await concreteIndices(transport, name);
  if (now.length !== 1 || now[0] !== generation) return false;
  return removeAlias === undefined || !(await concreteIndices(transport, removeAlias)).includes(generation);
}

export async function swapShadowAlias(transport: EngineTransport, shadow: string, live: string): Promise<void> {
  const [generation, ...others] = await concreteIndices(transport, shadow);
  if (generation === undefined || others.length > 0 || generation === shadow) {
    throw new DeltabrokerError('DB_NOT_FOUND', `no shadow search index ${shadow} to swap in`, { field: 'shadow', rule: 'index-exists', stage: STAGE });
  }
  await moveAlias(transport, live, generation, shadow);
}
