/**
 * Shadow builds on Elasticsearch. A shadow is an alias (the shadow's name) on a new concrete index of its own
 * generation (`<shadow>__g<time><random>`), so the next rebuild's shadow never collides with the index a
 * previous swap made live. The swap is one `_aliases` request, which Elasticsearch applies atomically: the
 * shadow alias is removed, the live name becomes an alias of the shadow's index, and the index (or indices)
 * the live name stood for are deleted (`remove_index` also turns a live name that was a concrete index into
 * an alias). Callers pass physical names (with the adapter's prefix).
 */
import { randomBytes } from 'node:crypto';
import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import { DeltabrokerError } from '../../errors';
import { fromElasticsearchError } from './es-errors';

const STAGE = 'search-index';

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw fromElasticsearchError(error, STAGE);
  }
}

/** The concrete indices a name stands for: itself when it is an index, the indices of an alias, none when absent. */
export async function concreteIndices(client: Client, name: string): Promise<string[]> {
  try {
    return Object.keys(await client.indices.get({ index: name }));
  } catch (error) {
    if (error instanceof errors.ResponseError && error.meta.statusCode === 404) return [];
    throw fromElasticsearchError(error, STAGE);
  }
}

export async function dropIndices(client: Client, name: string): Promise<void> {
  const indices = await concreteIndices(client, name);
  if (indices.length > 0) await call(() => client.indices.delete({ index: indices }));
}

export interface NewShadow {
  readonly name: string;
  readonly mappings: estypes.MappingTypeMapping;
  readonly settings?: estypes.IndicesIndexSettings;
  /** An index (or alias) whose documents the shadow starts with. */
  readonly copyOf?: string;
}

export async function createShadowIndex(client: Client, shadow: NewShadow): Promise<void> {
  await dropIndices(client, shadow.name);
  const generation = `${shadow.name}__g${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  await call(() =>
    client.indices.create({
      index: generation,
      mappings: shadow.mappings,
      aliases: { [shadow.name]: {} },
      ...(shadow.settings === undefined ? {} : { settings: shadow.settings }),
    }),
  );
  const copyOf = shadow.copyOf;
  if (copyOf === undefined || (await concreteIndices(client, copyOf)).length === 0) return;
  // external versions keep each document's projection version, so later writes stay version-fenced.
  const copied = await call(() =>
    client.reindex({ source: { index: copyOf }, dest: { index: generation, version_type: 'external' }, refresh: true, wait_for_completion: true }),
  );
  const failure = copied.failures?.[0];
  if (failure !== undefined) {
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `copying ${copyOf} into shadow ${shadow.name} failed: ${JSON.stringify(failure.cause ?? failure)}`,
      { stage: STAGE },
    );
  }
}

export async function swapShadowAlias(client: Client, shadow: string, live: string): Promise<void> {
  const [generation, ...others] = await concreteIndices(client, shadow);
  if (generation === undefined || others.length > 0 || generation === shadow) {
    throw new DeltabrokerError('DB_NOT_FOUND', `no shadow search index ${shadow} to swap in`, { field: 'shadow', rule: 'index-exists', stage: STAGE });
  }
  const replaced = (await concreteIndices(client, live)).filter((index) => index !== generation);
  await call(() =>
    client.indices.updateAliases({
      actions: [
        { remove: { index: generation, alias: shadow } },
        { add: { index: generation, alias: live } },
        ...replaced.map((index) => ({ remove_index: { index } })),
      ],
    }),
  );
}
