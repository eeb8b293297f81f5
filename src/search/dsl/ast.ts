/**
 * The supported query DSL subset as a checked tree: field names resolved against the index definition,
 * values coerced to the field's type. Engine-free; `postgres/` compiles it to SQL.
 */
import type { SearchFieldType } from '../search-port';

/** A queryable field. `keyword` is the `<field>.keyword` form: the whole string value, not its words. */
export interface FieldRef {
  readonly name: string;
  readonly type: Exclude<SearchFieldType, 'object'>;
  readonly keyword: boolean;
}

export type Scalar = string | number | boolean;

/** `minimum_should_match` as Elasticsearch reads it: from the number of optional clauses to the number required. */
export type MinimumShouldMatch = (optionalClauses: number) => number;

export interface RangeBounds {
  gt?: Scalar;
  gte?: Scalar;
  lt?: Scalar;
  lte?: Scalar;
}

export type MultiMatchType = 'best_fields' | 'most_fields' | 'phrase';

export type QueryNode =
  | { kind: 'match_all'; boost: number }
  | { kind: 'match'; field: FieldRef; query: string; operator: 'and' | 'or'; minimumShouldMatch?: MinimumShouldMatch; boost: number }
  | { kind: 'match_phrase'; field: FieldRef; query: string; boost: number }
  | {
      kind: 'multi_match';
      fields: { field: FieldRef; boost: number }[];
      query: string;
      operator: 'and' | 'or';
      type: MultiMatchType;
      boost: number;
    }
  | { kind: 'term'; field: FieldRef; value: Scalar; caseInsensitive: boolean; boost: number }
  | { kind: 'terms'; field: FieldRef; values: Scalar[]; boost: number }
  | { kind: 'range'; field: FieldRef; bounds: RangeBounds; boost: number }
  | { kind: 'exists'; field: FieldRef; boost: number }
  | { kind: 'prefix'; field: FieldRef; value: string; caseInsensitive: boolean; boost: number }
  | { kind: 'wildcard'; field: FieldRef; pattern: string; caseInsensitive: boolean; boost: number }
  | { kind: 'ids'; values: string[]; boost: number }
  | {
      kind: 'bool';
      must: QueryNode[];
      should: QueryNode[];
      filter: QueryNode[];
      mustNot: QueryNode[];
      /** Optional clauses required; already resolved against `should.length`. */
      minimumShouldMatch: number;
      boost: number;
    };

export type SortKey = { kind: 'score'; order: 'asc' | 'desc' } | { kind: 'field'; field: FieldRef; order: 'asc' | 'desc'; missing: 'first' | 'last' };

export interface TermsAggregation {
  name: string;
  field: FieldRef;
  size: number;
}

/** `_source` filtering: patterns (with `*`) of fields to keep and to drop; `false` drops the whole source. */
export type SourceFilter = false | { includes: string[]; excludes: string[] };

export interface SearchRequest {
  query: QueryNode;
  from: number;
  size: number;
  /** Absent: by score, best first. */
  sort?: SortKey[];
  source: SourceFilter;
  aggregations: TermsAggregation[];
  /** `true` counts every hit, a number counts up to it, `false` leaves `hits.total` out. */
  trackTotalHits: boolean | number;
  /** Whether hits carry a score: when unsorted, sorted by `_score`, or `track_scores: true`. */
  scored: boolean;
}
