/**
 * The search port on Elasticsearch (`@elastic/elasticsearch`; no other module imports it). One index per
 * definition (optionally prefixed), mappings derived from the definition, bulk writes with external
 * versions, and searches that always target the definition's own index.
 *
 * Refresh policy: `upsert` and `delete` default to `refresh: 'wait_for'`: they resolve once the change is
 * visible to search (Elasticsearch's next scheduled refresh, 1 s by default), so a projector that acknowledges
 * an event after the call gives read-your-writes without forcing a refresh per batch. `false` trades that
 * visibility for throughput (bulk rebuilds); `true` forces an immediate refresh (tests, small volumes).
 * Only the last batch of a call waits; earlier batches become visible with it.
 */
import { Client, type estypes } from '@elastic/elasticsearch';
import { DeltabrokerError } from '../../errors';
import { assertIndexName, latestPerId, validateDocuments, validateIds, validateIndexDefinition } from '../index-definition';
import type { IndexDefinition, SearchDocument, SearchIndex, SearchResponse, TermsAggregationResult } from '../search-port';
import { sourceProjector } from '../source-filter';
import { fromElasticsearchError } from './es-errors';
import { definitionFromMappings, mappingsFor } from './mappings';
import { guardSearch } from './request-guard';
import { concreteIndices, createShadowIndex, dropIndices, swapShadowAlias } from './shadow-aliases';

export type RefreshPolicy = 'wait_for' | boolean;

export interface ElasticsearchSearchOptions {
  /** Prepended to every index name (an environment or tenant), e.g. `prod_`. Default none. */
  indexPrefix?: string;
  /** See the module comment. Default `'wait_for'`. */
  refresh?: RefreshPolicy;
  /** Documents per bulk request. Default 500. */
  batchSize?: number;
  /** Settings of indices this adapter creates. */
  settings?: { number_of_shards?: number; number_of_replicas?: number };
}

export interface ElasticsearchConnection {
  node: string | string[];
  username?: string;
  password?: string;
  apiKey?: string;
  /** SHA-256 fingerprint of the cluster's CA, for self-signed TLS. */
  caFingerprint?: string;
  requestTimeoutMs?: number;
}

type BulkItem = Partial<Record<estypes.BulkOperationType, estypes.BulkResponseItem>>;

function bulkFailure(items: BulkItem[], ignoredStatus: number): DeltabrokerError | undefined {
  for (const item of items) {
    const result = Object.values(item)[0];
    if (result?.error === undefined || result.status === ignoredStatus) continue;
    const message = `Elasticsearch refused document ${JSON.stringify(result._id)}: ${result.error.type}: ${result.error.reason ?? ''}`;
    const details = { stage: 'search-index', field: `docs[id=${result._id ?? ''}]`, engineStatus: result.status, engineType: result.error.type };
    if (result.status === 400) return new DeltabrokerError('DB_VALIDATION', message, { ...details, rule: 'rejected-by-engine' });
    if (result.status === 429 || result.status >= 500) return new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', message, details);
    return new DeltabrokerError('DB_INTERNAL', message, details);
  }
  return undefined;
}

export function createElasticsearchSearchIndex(client: Client, options: ElasticsearchSearchOptions = {}, closeClient = false): SearchIndex {
  const prefix = options.indexPrefix ?? '';
  const refresh = options.refresh ?? 'wait_for';
  const batchSize = options.batchSize ?? 500;
  const definitions = new Map<string, IndexDefinition>();
  const physical = (name: string): string => `${prefix}${name}`;

  async function definitionOf(name: string): Promise<IndexDefinition> {
    assertIndexName(name);
    const cached = definitions.get(name);
    if (cached !== undefined) return cached;
    let stored: IndexDefinition | undefined;
    try {
      // Keyed by the concrete index, which differs from the name once a shadow swap made the name an alias.
      const response = await client.indices.getMapping({ index: physical(name) });
      stored = definitionFromMappings(Object.values(response)[0]?.mappings);
    } catch (error) {
      throw fromElasticsearchError(error);
    }
    if (stored === undefined) {
      throw new DeltabrokerError('DB_NOT_FOUND', `no search index ${name}`, { field: 'dispatch.entity', rule: 'index-exists', stage: 'search' });
    }
    // A swapped-in shadow's mapping still names the shadow.
    const definition = validateIndexDefinition({ ...stored, name });
    definitions.set(name, definition);
    return definition;
  }

  /** Sends bulk operations in batches; only the last batch waits for the refresh policy. */
  async function bulk(operations: unknown[][], ignoredStatus: number): Promise<void> {
    for (let i = 0; i < operations.length; i++) {
      let response: estypes.BulkResponse;
      try {
        response = await client.bulk({ operations: operations[i], refresh: i === operations.length - 1 ? refresh : false });
      } catch (error) {
        throw fromElasticsearchError(error, 'search-index');
      }
      const failure = response.errors ? bulkFailure(response.items, ignoredStatus) : undefined;
      if (failure !== undefined) throw failure;
    }
  }

  const batches = <T>(items: readonly T[]): T[][] => {
    const out: T[][] = [];
    for (let i = 0; i < items.length; i += batchSize) out.push(items.slice(i, i + batchSize));
    return out;
  };

  return {
    async ensureIndex(index) {
      const definition = validateIndexDefinition(index);
      const target = physical(definition.name);
      const mappings = mappingsFor(definition) as estypes.MappingTypeMapping;
      try {
        if (await client.indices.exists({ index: target })) {
          await client.indices.putMapping({ index: target, ...mappings });
        } else {
          await client.indices.create({ index: target, mappings, ...(options.settings === undefined ? {} : { settings: options.settings }) });
        }
      } catch (error) {
        throw fromElasticsearchError(error, 'search-index');
      }
      definitions.set(definition.name, definition);
    },

    async upsert(index, docs) {
      const definition = await definitionOf(index);
      validateDocuments(definition, docs);
      const target = physical(definition.name);
      const toOperations = (doc: SearchDocument) => [
        // external_gte: an older version is refused (409, ignored below), the same version re-applies: replays are idempotent.
        { index: { _index: target, _id: doc.id, version: doc.version, version_type: 'external_gte' as const } },
        doc.source,
      ];
      await bulk(
        batches(latestPerId(docs)).map((batch) => batch.flatMap(toOperations)),
        409,
      );
    },

    async delete(index, ids) {
      const definition = await definitionOf(index);
      validateIds(ids);
      const target = physical(definition.name);
      await bulk(
        batches(ids).map((batch) => batch.map((id) => ({ delete: { _index: target, _id: id } }))),
        404,
      );
    },

    async maskFields(index, match, fields, marker) {
      const definition = await definitionOf(index);
      try {
        const response = await client.updateByQuery({
          index: physical(definition.name),
          refresh: true,
          conflicts: 'proceed',
          query: { term: { [match.field]: match.value } },
          script: {
            lang: 'painless',
            source: 'for (f in params.fields) { if (ctx._source[f] instanceof String) { ctx._source[f] = params.marker } }',
            params: { fields: [...fields], marker },
          },
        });
        return response.updated ?? 0;
      } catch (error) {
        throw fromElasticsearchError(error);
      }
    },

    async search(index, body, searchOptions = {}) {
      const definition = await definitionOf(index);
      const guarded = guardSearch(body, definition, searchOptions.readableFields);
      let response: estypes.SearchResponse<Record<string, unknown>>;
      try {
        response = await client.search<Record<string, unknown>>({ ...guarded.params, index: physical(definition.name) });
      } catch (error) {
        throw fromElasticsearchError(error);
      }
      if (response.timed_out) throw new DeltabrokerError('DB_TIMEOUT', 'the search timed out', { stage: 'search' });
      const project = sourceProjector(guarded.source, searchOptions.readableFields);
      const total = response.hits.total;
      const result: SearchResponse = {
        took: response.took,
        timed_out: false,
        hits: {
          ...(total === undefined
            ? {}
            : { total: typeof total === 'number' ? { value: total, relation: 'eq' } : { value: total.value, relation: total.relation } }),
          max_score: response.hits.max_score ?? null,
          hits: response.hits.hits.map((hit) => {
            const source = project(hit._source ?? {});
            return { _index: definition.name, _id: hit._id ?? '', _score: hit._score ?? null, ...(source === undefined ? {} : { _source: source }) };
          }),
        },
      };
      if (response.aggregations !== undefined) result.aggregations = response.aggregations as unknown as Record<string, TermsAggregationResult>;
      return result;
    },

    async exists(index) {
      assertIndexName(index);
      return (await concreteIndices(client, physical(index))).length > 0;
    },

    async createShadow(shadow, copyOf) {
      const definition = validateIndexDefinition(shadow);
      if (copyOf !== undefined) assertIndexName(copyOf);
      await createShadowIndex(client, {
        name: physical(definition.name),
        mappings: mappingsFor(definition),
        ...(options.settings === undefined ? {} : { settings: options.settings }),
        ...(copyOf === undefined ? {} : { copyOf: physical(copyOf) }),
      });
      definitions.set(definition.name, definition);
    },

    async swapShadow(shadow, live) {
      const definition = await definitionOf(shadow);
      assertIndexName(live);
      await swapShadowAlias(client, physical(shadow), physical(live));
      definitions.delete(shadow);
      definitions.set(live, { ...definition, name: live });
    },

    async drop(index) {
      assertIndexName(index);
      await dropIndices(client, physical(index));
      definitions.delete(index);
    },

    async close() {
      definitions.clear();
      if (closeClient) await client.close();
    },
  };
}

/** Connects to a cluster (checking that it answers) and returns the adapter; `close()` closes the connection. */
export async function openElasticsearchSearchIndex(connection: ElasticsearchConnection, options: ElasticsearchSearchOptions = {}): Promise<SearchIndex> {
  const auth =
    connection.apiKey !== undefined
      ? { apiKey: connection.apiKey }
      : connection.username !== undefined
        ? { username: connection.username, password: connection.password ?? '' }
        : undefined;
  const client = new Client({
    node: connection.node,
    ...(auth === undefined ? {} : { auth }),
    ...(connection.caFingerprint === undefined ? {} : { caFingerprint: connection.caFingerprint }),
    requestTimeout: connection.requestTimeoutMs ?? 30_000,
  });
  try {
    await client.info();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw fromElasticsearchError(error, 'startup');
  }
  return createElasticsearchSearchIndex(client, options, true);
}
