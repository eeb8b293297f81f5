/**
 * The search port: an index of documents per entity, queried with the Elasticsearch query DSL and answering
 * in Elasticsearch's response shape. Adapters: `postgres/` (the supported DSL subset translated to SQL, the
 * embedded default), and `elasticsearch/` and `opensearch/` on one shared core (`elastic-family/`). The port
 * knows nothing of tenants or entity configuration: a caller maps an entity's configured fields onto an
 * `IndexDefinition`. Where the engines legitimately differ from PostgreSQL, the member says so ("Engines:").
 */

import type { GuardedWrite } from '../store/sql-client';

/** Field types an index understands. `object` is stored and returned, never queried. */
export const SEARCH_FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'timestamp', 'object'] as const;
export type SearchFieldType = (typeof SEARCH_FIELD_TYPES)[number];

export interface IndexField {
  /** Top-level document key: a letter, then letters, digits or underscores (at most 63), like entity configuration field names. */
  readonly name: string;
  readonly type: SearchFieldType;
  /**
   * A `string` field holding ciphertext (the entity's sensitive fields): stored and returned, never analysed
   * into words. Queries compare its whole value, as on `<name>.keyword`; `multi_match` patterns skip it.
   */
  readonly sensitive?: boolean;
}

export interface IndexDefinition {
  /** Lower-case letters, digits, underscores; starts with a letter; at most 63 characters. */
  readonly name: string;
  readonly fields: readonly IndexField[];
}

export interface SearchDocument {
  /** The record key; at most 512 bytes, as in Elasticsearch. */
  readonly id: string;
  readonly source: Record<string, unknown>;
  /** Projection version; an upsert carrying a lower version than the stored one is ignored. */
  readonly version: number;
}

export interface SearchOptions {
  /**
   * Top-level fields the caller may read. Absent: every field. Other fields are never returned in `_source`,
   * and a query, sort or aggregation naming one is refused with DB_FORBIDDEN.
   */
  readonly readableFields?: ReadonlySet<string>;
}

export interface SearchHit {
  _index: string;
  _id: string;
  /** Null when the results are sorted by a field and not by score, as in Elasticsearch. */
  _score: number | null;
  /** Absent when the request asked for `_source: false`. */
  _source?: Record<string, unknown>;
}

export interface TermsBucket {
  key: string | number;
  key_as_string?: string;
  doc_count: number;
}

export interface TermsAggregationResult {
  doc_count_error_upper_bound: number;
  sum_other_doc_count: number;
  buckets: TermsBucket[];
}

export interface SearchResponse {
  took: number;
  timed_out: false;
  hits: {
    /** Absent when the request said `track_total_hits: false`. */
    total?: { value: number; relation: 'eq' | 'gte' };
    max_score: number | null;
    hits: SearchHit[];
  };
  aggregations?: Record<string, TermsAggregationResult>;
}

/** The two writes a projector makes. */
export type SearchWrites = Pick<SearchIndex, 'upsert' | 'delete'>;

/**
 * Upserts and deletes per index, as statements to run inside a larger one (GuardedWrite), for an index that lives
 * in the relational store.
 */
export type GuardedSearchWrites = (
  upserts: ReadonlyMap<string, readonly SearchDocument[]>,
  deletes: ReadonlyMap<string, readonly string[]>,
) => Promise<GuardedWrite[]>;

export interface SearchIndex {
  /**
   * Creates the index, or brings its fields up to date with `index`: a new field finds the documents already
   * stored, a field whose type changed keeps them. Idempotent, and safe for instances starting together.
   * Engines: adding or retyping a field rebuilds the index (a copy, then an alias move); a delete made while it
   * runs may be undone.
   */
  ensureIndex(index: IndexDefinition): Promise<void>;
  /**
   * Inserts or replaces documents; a document whose version is below the stored one is left as is. Resolves
   * once every document is visible to search (engines: by default, see the adapter's refresh policy).
   * Engines: a timestamp written with a space before its time or a lower-case `z` is stored with `T` and `Z`
   * (the same instant; the engines' date format refuses the other forms).
   */
  upsert(index: string, docs: readonly SearchDocument[]): Promise<void>;
  /** Removes documents by id; unknown ids are ignored. */
  delete(index: string, ids: readonly string[]): Promise<void>;
  /**
   * Replaces the string values of `fields` by `marker` in every document whose `match.field` equals
   * `match.value` (the whole value, case-sensitive), keeping versions (a data subject's erasure). Answers how
   * many documents changed: a repeated erasure changes and counts nothing, and the record's next event applies.
   * Engines: `match.field` must be a declared field that is not an `object`.
   */
  maskFields(index: string, match: { field: string; value: string }, fields: readonly string[], marker: string): Promise<number>;
  /**
   * Runs an Elasticsearch query DSL body against `index` (never another index, whatever the body says).
   * Engines: an answer some shards failed to give is DB_DEPENDENCY_UNAVAILABLE, never partial results.
   */
  search(index: string, body: unknown, options?: SearchOptions): Promise<SearchResponse>;
  /** Whether an index (live or shadow) of this name is there. */
  exists(index: string): Promise<boolean>;
  /**
   * Starts a shadow build: a new, empty index named `shadow.name` (replacing an earlier shadow of that name)
   * that the usual writes fill while the live index keeps serving. With `copyOf`, it starts as a copy of that
   * index's documents (a replay that re-applies only a tail).
   */
  createShadow(shadow: IndexDefinition, copyOf?: string): Promise<void>;
  /**
   * Makes the shadow the index `live` in one step: searches of `live` see all the old documents or all the
   * shadow's, never a mix. The shadow's name and the replaced index are gone afterwards; `live` keeps the
   * shadow's fields. Postgres renames the shadow's table in one transaction, Elasticsearch moves an alias.
   */
  swapShadow(shadow: string, live: string): Promise<void>;
  /** Removes an index and its documents (a shadow given up); an absent one is ignored. */
  drop(index: string): Promise<void>;
  close(): Promise<void>;
}

/** Most hits one request may ask for (`size`). */
export const MAX_SEARCH_SIZE = 1000;
/** Hits returned when `size` is absent, as in Elasticsearch. */
export const DEFAULT_SEARCH_SIZE = 10;
/** `from + size` limit, Elasticsearch's default `index.max_result_window`. */
export const MAX_RESULT_WINDOW = 10_000;
/** Hits counted exactly when `track_total_hits` is absent, as in Elasticsearch. */
export const DEFAULT_TRACK_TOTAL_HITS = 10_000;
