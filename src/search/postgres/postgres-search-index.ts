/**
 * The search port on the relational store (`SqlClient`: a PostgreSQL server, embedded or not). Each search
 * body is parsed into the supported DSL subset, checked against the index definition and the caller's
 * readable fields, and compiled into one parameterised statement.
 */
import { DeltabrokerError } from '../../errors';
import type { GuardedWrite, SqlClient, SqlExecutor } from '../../store/sql-client';
import type { SearchRequest } from '../dsl/ast';
import { FieldResolver } from '../dsl/fields';
import { parseSearchBody } from '../dsl/parse-request';
import { assertIndexName, latestPerId, validateDocuments, validateIds, validateIndexDefinition } from '../index-definition';
import type {
  GuardedSearchWrites,
  IndexDefinition,
  SearchDocument,
  SearchHit,
  SearchIndex,
  SearchOptions,
  SearchResponse,
  SearchWrites,
  TermsAggregationResult,
} from '../search-port';
import { sourceProjector } from '../source-filter';
import { compileSearch, type SearchRow } from './compile-search';
import { allWordsExpression } from './field-sql';
import { applyDefinition, findDefinition, tableOf } from './schema';
import { createShadow, dropIndex, swapShadow, tableExists } from './shadow-swap';

/** Where the adapter keeps its tables unless told otherwise. */
export const DEFAULT_SEARCH_SCHEMA = 'search';

export interface PostgresSearchOptions {
  /** Schema holding the index tables and their catalog. Default `search`. */
  schema?: string;
  /** Documents per upsert statement. Default 1,000 (one statement per row is ~25x slower). */
  batchSize?: number;
}

export interface PostgresSearchIndex extends SearchIndex {
  /**
   * Upserts and deletes inside the caller's transaction, e.g. a projector's, so that index changes commit
   * together with its checkpoint. The index must exist (ensureIndex) beforehand.
   */
  writeIn(tx: SqlExecutor): SearchWrites;
  /** The same writes as statements to run inside a larger one (a projector's round in one statement). */
  guardedWrites: GuardedSearchWrites;
}

/** The SqlClient stays the caller's: `close()` forgets cached definitions but does not close it. */
export function createPostgresSearchIndex(sql: SqlClient, options: PostgresSearchOptions = {}): PostgresSearchIndex {
  const schema = options.schema ?? DEFAULT_SEARCH_SCHEMA;
  const batchSize = options.batchSize ?? 1000;
  const definitions = new Map<string, IndexDefinition>();

  /** `executor` is the caller's transaction when there is one, so the write commits with the caller's checkpoint. */
  async function definitionOf(name: string, executor: SqlExecutor = sql): Promise<IndexDefinition> {
    assertIndexName(name);
    const cached = definitions.get(name);
    if (cached !== undefined) return cached;
    const loaded = await findDefinition(executor, schema, name);
    if (loaded === undefined)
      throw new DeltabrokerError('DB_NOT_FOUND', `no search index ${name}`, { field: 'dispatch.entity', rule: 'index-exists', stage: 'search' });
    definitions.set(name, loaded);
    return loaded;
  }

  /**
   * The statements that upsert `docs` (the newest per id), in batches. Ids and versions travel as typed arrays and
   * the sources as one JSON array, parsed once: a jsonb recordset parsed each source a second time (about 7 µs of
   * server CPU per document in a replay). `executor` is where the definition is read when not cached.
   */
  async function upsertWrites(index: string, docs: readonly SearchDocument[], executor?: SqlExecutor): Promise<GuardedWrite[]> {
    const definition = await definitionOf(index, executor);
    validateDocuments(definition, docs);
    const table = tableOf(schema, definition.name);
    const latest = latestPerId(docs);
    const writes: GuardedWrite[] = [];
    for (let i = 0; i < latest.length; i += batchSize)
      writes.push({ text: (first, guard) => upsertText(table, first, guard), values: upsertValues(latest.slice(i, i + batchSize)) });
    return writes;
  }

  async function deleteWrites(index: string, ids: readonly string[], executor?: SqlExecutor): Promise<GuardedWrite[]> {
    const definition = await definitionOf(index, executor);
    validateIds(ids);
    const table = tableOf(schema, definition.name);
    return ids.length === 0 ? [] : [{ text: (first, guard) => deleteText(table, first, guard), values: [JSON.stringify(ids)] }];
  }

  /** Several batches run in one transaction: the caller's `tx`, or one of our own. */
  async function upsert(index: string, docs: readonly SearchDocument[], tx: SqlExecutor | undefined): Promise<void> {
    const writes = await upsertWrites(index, docs, tx);
    const writeAll = async (executor: SqlExecutor) => {
      // Prepared: the projector's statement for every batch.
      for (const write of writes) await executor.query(write.text(1), write.values, { prepare: true });
    };
    if (tx !== undefined || writes.length <= 1) await writeAll(tx ?? sql);
    else await sql.transaction(writeAll);
  }

  async function remove(index: string, ids: readonly string[], executor: SqlExecutor): Promise<void> {
    for (const write of await deleteWrites(index, ids, executor)) await executor.query(write.text(1), write.values);
  }

  async function guardedWrites(
    upserts: ReadonlyMap<string, readonly SearchDocument[]>,
    deletes: ReadonlyMap<string, readonly string[]>,
  ): Promise<GuardedWrite[]> {
    const writes: GuardedWrite[] = [];
    for (const [index, docs] of upserts) writes.push(...(await upsertWrites(index, docs)));
    for (const [index, ids] of deletes) writes.push(...(await deleteWrites(index, ids)));
    return writes;
  }

  return {
    async ensureIndex(index) {
      const definition = validateIndexDefinition(index);
      await sql.transaction((tx) => applyDefinition(tx, schema, definition));
      definitions.set(definition.name, definition);
    },

    upsert: (index, docs) => upsert(index, docs, undefined),
    delete: (index, ids) => remove(index, ids, sql),
    async maskFields(index, match, fields, marker) {
      const definition = await definitionOf(index);
      // Only string values are masked; null and absent fields stay as they are. Names and values are parameters.
      const result = await sql.query(
        `update ${tableOf(schema, definition.name)} set source = source || (
           select coalesce(jsonb_object_agg(f, to_jsonb($4::text)), '{}'::jsonb) from unnest($3::text[]) as f where jsonb_typeof(source -> f) = 'string')
         where source ->> $1 = $2 and exists (select 1 from unnest($3::text[]) as f where jsonb_typeof(source -> f) = 'string' and source ->> f <> $4)`,
        [match.field, match.value, [...fields], marker],
      );
      return result.rowCount;
    },
    writeIn: (tx) => ({ upsert: (index, docs) => upsert(index, docs, tx), delete: (index, ids) => remove(index, ids, tx) }),
    guardedWrites,

    async search(index, body, searchOptions = {}) {
      const started = performance.now();
      const definition = await definitionOf(index);
      const request = parseSearchBody(body, new FieldResolver(definition, searchOptions.readableFields));
      const compiled = compileSearch(tableOf(schema, definition.name), request, allWordsExpression(definition.fields));
      const { rows } = await sql.query<{ result: SearchRow }>(compiled.text, compiled.values);
      const row = rows[0]?.result;
      if (row === undefined) throw new DeltabrokerError('DB_INTERNAL', 'search statement returned no row', { stage: 'search' });
      return toResponse(definition, request, row, searchOptions, Math.round(performance.now() - started));
    },

    async exists(index) {
      assertIndexName(index);
      return tableExists(sql, schema, index);
    },

    async createShadow(shadow, copyOf) {
      const definition = validateIndexDefinition(shadow);
      if (copyOf !== undefined) assertIndexName(copyOf);
      await sql.transaction((tx) => createShadow(tx, schema, definition, copyOf));
      definitions.set(definition.name, definition);
    },

    async swapShadow(shadow, live) {
      assertIndexName(shadow);
      assertIndexName(live);
      const swapped = await sql.transaction((tx) => swapShadow(tx, schema, shadow, live));
      definitions.delete(shadow);
      definitions.set(live, swapped);
    },

    async drop(index) {
      assertIndexName(index);
      await sql.transaction((tx) => dropIndex(tx, schema, index));
      definitions.delete(index);
    },

    async close() {
      definitions.clear();
    },
  };
}

/** Ids and versions as typed arrays, the sources as one JSON array (see upsertWrites). */
const upsertValues = (docs: readonly SearchDocument[]): unknown[] => [
  docs.map((d) => d.id),
  docs.map((d) => d.version),
  JSON.stringify(docs.map((d) => d.source)),
];

function upsertText(table: string, first: number, guard?: string): string {
  return `insert into ${table} as t (id, source, version)
       select r.id, d.source, r.version
         from unnest($${first}::text[], $${first + 1}::bigint[]) with ordinality as r(id, version, n)
         join jsonb_array_elements($${first + 2}::jsonb) with ordinality as d(source, n) on d.n = r.n${
           guard === undefined
             ? ''
             : `
        where ${guard}`
         }
       on conflict (id) do update set source = excluded.source, version = excluded.version
       where t.version <= excluded.version`;
}

function deleteText(table: string, first: number, guard?: string): string {
  return `delete from ${table} where id in (select jsonb_array_elements_text($${first}::jsonb))${guard === undefined ? '' : ` and ${guard}`}`;
}

function toResponse(definition: IndexDefinition, request: SearchRequest, row: SearchRow, options: SearchOptions, took: number): SearchResponse {
  const project = sourceProjector(request.source, options.readableFields);
  const hits = row.hits.map((hit): SearchHit => {
    const source = project(hit.source);
    return { _index: definition.name, _id: hit.id, _score: request.scored ? hit.score : null, ...(source === undefined ? {} : { _source: source }) };
  });
  const response: SearchResponse = {
    took,
    timed_out: false,
    hits: {
      ...(row.total === null ? {} : { total: totalOf(row.total, request.trackTotalHits) }),
      max_score: request.scored && row.max_score !== null ? row.max_score : null,
      hits,
    },
  };
  if (request.aggregations.length > 0 && row.aggs !== null) {
    const aggregations: Record<string, TermsAggregationResult> = {};
    for (const agg of request.aggregations) {
      const result = row.aggs[agg.name] ?? { buckets: [], other: 0 };
      aggregations[agg.name] = {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: Number(result.other),
        buckets: result.buckets.map((b) => ({ ...bucketKey(agg.field.type, b.key), doc_count: Number(b.doc_count) })),
      };
    }
    response.aggregations = aggregations;
  }
  return response;
}

function totalOf(count: number, track: boolean | number): { value: number; relation: 'eq' | 'gte' } {
  const n = Number(count);
  return typeof track === 'number' && n > track ? { value: track, relation: 'gte' } : { value: n, relation: 'eq' };
}

/** Bucket keys as Elasticsearch gives them: booleans as 1/0 and dates as epoch milliseconds, each with `key_as_string`. */
function bucketKey(type: string, key: unknown): { key: string | number; key_as_string?: string } {
  if (type === 'boolean') return { key: key === true ? 1 : 0, key_as_string: String(key) };
  if (type === 'timestamp') {
    const ms = Date.parse(String(key));
    return { key: ms, key_as_string: new Date(ms).toISOString() };
  }
  if (type === 'integer' || type === 'number') return { key: Number(key) };
  return { key: String(key) };
}
