/**
 * The search port on an Elasticsearch-family engine (Elasticsearch 9, OpenSearch 2). It builds REST requests and
 * reads answers; the engine's client is behind `EngineTransport` (`../elasticsearch/`, `../opensearch/`). One
 * index per definition (optionally prefixed), mappings derived from the definition, bulk writes with external
 * versions, and searches that always target the definition's own index.
 *
 * Refresh policy: `upsert` and `delete` default to `refresh: 'wait_for'`: they resolve once the change is
 * visible to search (the engine's next scheduled refresh, 1 s by default), so a projector that acknowledges an
 * event after the call gives read-your-writes without forcing a refresh per batch. `false` trades that
 * visibility for throughput (bulk rebuilds); `true` forces an immediate refresh (tests, small volumes).
 */
import { DeltabrokerError } from '../../errors';
import { assertIndexName, latestPerId, validateDocuments, validateIds, validateIndexDefinition } from '../index-definition';
import type { IndexDefinition, SearchDocument, SearchIndex } from '../search-port';
import { inBatches, sendBulk, type RefreshPolicy } from './bulk-writes';
import { engineCall } from './engine-errors';
import { pathOf, type EngineTransport } from './engine-transport';
import { ensureEngineIndex, storedDefinition } from './index-setup';
import { engineSource, mappingsFor } from './mappings';
import { maskSubject } from './mask-fields';
import { guardSearch } from './request-guard';
import { readSearchAnswer, type EngineSearchAnswer } from './search-answer';
import { concreteIndices, createShadowIndex, dropIndices, swapShadowAlias } from './shadow-aliases';

export type { RefreshPolicy } from './bulk-writes';

export interface ElasticFamilyOptions {
  /** Prepended to every index name (an environment or tenant), e.g. `prod_`: lower-case letters, digits, `_`, `-`. Default none. */
  indexPrefix?: string;
  /** See the module comment. Default `'wait_for'`. */
  refresh?: RefreshPolicy;
  /** Documents per bulk request. Default 500. */
  batchSize?: number;
  /** Settings of indices this adapter creates. */
  settings?: { number_of_shards?: number; number_of_replicas?: number };
}

/** Engine index names are lower-case and may not start with `-`, `_` or `+`; the prefix starts one. */
const INDEX_PREFIX = /^(?:[a-z0-9][a-z0-9_-]{0,63})?$/;

export function createElasticFamilySearchIndex(transport: EngineTransport, options: ElasticFamilyOptions = {}): SearchIndex {
  const prefix = options.indexPrefix ?? '';
  if (!INDEX_PREFIX.test(prefix)) {
    throw new DeltabrokerError('DB_VALIDATION', `index prefix ${JSON.stringify(prefix)} is not a valid start of an index name`, {
      field: 'indexPrefix',
      rule: 'pattern',
      stage: 'startup',
    });
  }
  const refresh = options.refresh ?? 'wait_for';
  const batchSize = options.batchSize ?? 500;
  const definitions = new Map<string, IndexDefinition>();
  let closing: Promise<void> | undefined;
  const physical = (name: string): string => `${prefix}${name}`;

  async function definitionOf(name: string): Promise<IndexDefinition> {
    assertIndexName(name);
    const cached = definitions.get(name);
    if (cached !== undefined) return cached;
    const stored = await storedDefinition(transport, physical(name));
    if (stored === undefined) {
      throw new DeltabrokerError('DB_NOT_FOUND', `no search index ${name}`, { field: 'dispatch.entity', rule: 'index-exists', stage: 'search' });
    }
    // A swapped-in shadow's mapping still names the shadow.
    const definition = validateIndexDefinition({ ...stored, name });
    definitions.set(name, definition);
    return definition;
  }

  return {
    async ensureIndex(index) {
      const definition = validateIndexDefinition(index);
      await ensureEngineIndex(transport, physical(definition.name), definition, options.settings);
      definitions.set(definition.name, definition);
    },

    async upsert(index, docs) {
      const definition = await definitionOf(index);
      validateDocuments(definition, docs);
      const target = physical(definition.name);
      const toOperations = (doc: SearchDocument) => [
        { index: { _index: target, _id: doc.id, version: doc.version, version_type: 'external_gte' } },
        engineSource(definition, doc.source),
      ];
      await sendBulk(
        transport,
        inBatches(latestPerId(docs), batchSize).map((batch) => batch.flatMap(toOperations)),
        409,
        refresh,
      );
    },

    async delete(index, ids) {
      const definition = await definitionOf(index);
      validateIds(ids);
      const target = physical(definition.name);
      await sendBulk(
        transport,
        inBatches(ids, batchSize).map((batch) => batch.map((id) => ({ delete: { _index: target, _id: id } }))),
        404,
        refresh,
      );
    },

    async maskFields(index, match, fields, marker) {
      const definition = await definitionOf(index);
      return maskSubject(transport, physical(definition.name), definition, { match, fields, marker }, true);
    },

    async search(index, body, searchOptions = {}) {
      const definition = await definitionOf(index);
      const guarded = guardSearch(body, definition, searchOptions.readableFields);
      const { body: answer } = await engineCall(() =>
        transport.request<EngineSearchAnswer>({ method: 'POST', path: `${pathOf(physical(definition.name))}/_search`, body: guarded.params }),
      );
      return readSearchAnswer(answer, definition, guarded.source, searchOptions.readableFields, transport.product);
    },

    async exists(index) {
      assertIndexName(index);
      return (await concreteIndices(transport, physical(index))).length > 0;
    },

    async createShadow(shadow, copyOf) {
      const definition = validateIndexDefinition(shadow);
      if (copyOf !== undefined) assertIndexName(copyOf);
      await createShadowIndex(transport, {
        name: physical(definition.name),
        mappings: mappingsFor(definition),
        ...(options.settings === undefined ? {} : { settings: options.settings }),
        ...(copyOf === undefined ? {} : { copyOf: physical(copyOf) }),
      });
      definitions.set(definition.name, definition);
    },

    async swapShadow(shadow, live) {
      assertIndexName(shadow);
      assertIndexName(live);
      await swapShadowAlias(transport, physical(shadow), physical(live));
      definitions.delete(shadow);
      definitions.delete(live);
    },

    async drop(index) {
      assertIndexName(index);
      await dropIndices(transport, physical(index));
      definitions.delete(index);
    },

    close() {
      // Once: the OpenSearch client's pool never answers a second close once it holds no connection.
      closing ??= (async () => {
        definitions.clear();
        await transport.close();
      })();
      return closing;
    },
  };
}
