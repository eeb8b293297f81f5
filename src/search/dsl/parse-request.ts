/** Parses a whole search body (`query`, `from`, `size`, `sort`, `_source`, `aggs`, …) into a `SearchRequest`. */
import { containsNul } from '../index-definition';
import { DEFAULT_SEARCH_SIZE, DEFAULT_TRACK_TOTAL_HITS, MAX_RESULT_WINDOW, MAX_SEARCH_SIZE } from '../search-port';
import { parseSourceFilter } from '../source-filter';
import type { SearchRequest, SortKey, TermsAggregation } from './ast';
import { requireBoolean } from './coerce';
import { invalid, isPlainObject, malformed, refuseColonSort, unsupported } from './errors';
import type { FieldResolver } from './fields';
import { parseQuery } from './parse-query';

const TOP_LEVEL = new Set(['query', 'from', 'size', 'sort', '_source', 'aggs', 'aggregations', 'track_total_hits', 'track_scores']);
const MAX_AGGREGATIONS = 20;

/**
 * Refuses the keys that would point a request at another index. The search always runs against the index
 * the entity maps to, so a body naming one is a mistake worth reporting rather than silently ignoring.
 */
export function refuseIndexKeys(body: Record<string, unknown>): void {
  for (const key of ['index', '_index']) {
    if (key in body) throw invalid(`payload.${key}`, 'not-allowed', "a search runs against the entity's own index; the body may not name one");
  }
}

export function parseSearchBody(body: unknown, fields: FieldResolver): SearchRequest {
  if (body === undefined || body === null) body = {};
  if (!isPlainObject(body)) throw malformed('payload', 'a search payload must be a JSON object');
  refuseIndexKeys(body);
  // PostgreSQL text cannot hold U+0000: a query naming it would fail inside the database (a 500) instead.
  if (containsNul(body)) throw invalid('payload', 'nul-character', 'U+0000 (NUL) is not allowed in a search request');
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) throw unsupported(`payload.${key}`, `search option "${key}"`);
  if (body.aggs !== undefined && body.aggregations !== undefined) throw invalid('payload.aggs', 'one-of', 'use either aggs or aggregations');

  const { from, size } = parsePaging(body);
  const sort = body.sort === undefined ? undefined : parseSort(body.sort, fields);
  const trackScores = body.track_scores === undefined ? false : requireBoolean(body.track_scores, 'payload.track_scores');
  return {
    query: body.query === undefined ? { kind: 'match_all', boost: 1 } : parseQuery(body.query, 'payload.query', fields),
    from,
    size,
    ...(sort === undefined ? {} : { sort }),
    source: parseSourceFilter(body._source, 'payload._source', (name) => fields.isHidden(name)),
    aggregations: parseAggregations(body.aggs ?? body.aggregations, body.aggs === undefined ? 'payload.aggregations' : 'payload.aggs', fields),
    trackTotalHits: parseTrackTotalHits(body.track_total_hits),
    scored: sort === undefined || trackScores || sort.some((key) => key.kind === 'score'),
  };
}

/** `from` and `size`, with Elasticsearch's defaults and our cap on `size`. Shared with the Elasticsearch adapter. */
export function parsePaging(body: Record<string, unknown>): { from: number; size: number } {
  const size = integerIn(body.size, 'payload.size', 0, MAX_SEARCH_SIZE, DEFAULT_SEARCH_SIZE);
  const from = integerIn(body.from, 'payload.from', 0, MAX_RESULT_WINDOW, 0);
  if (from + size > MAX_RESULT_WINDOW) throw invalid('payload.from', 'max', `from + size may not exceed ${MAX_RESULT_WINDOW}`);
  return { from, size };
}

function integerIn(value: unknown, path: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(path, 'type', 'expected an integer');
  if (value < min) throw invalid(path, 'min', `must be at least ${min}`);
  if (value > max) throw invalid(path, 'max', `may not exceed ${max}`);
  return value;
}

function parseTrackTotalHits(value: unknown): boolean | number {
  if (value === undefined) return DEFAULT_TRACK_TOTAL_HITS;
  if (typeof value === 'boolean') return value;
  return integerIn(value, 'payload.track_total_hits', 0, Number.MAX_SAFE_INTEGER, DEFAULT_TRACK_TOTAL_HITS);
}

function parseOrder(value: unknown, path: string): 'asc' | 'desc' {
  if (value === 'asc' || value === 'desc') return value;
  throw invalid(path, 'enum', 'order must be "asc" or "desc"');
}

function parseSort(value: unknown, fields: FieldResolver): SortKey[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item: unknown, i): SortKey => {
    const path = Array.isArray(value) ? `payload.sort[${i}]` : 'payload.sort';
    let name: string;
    let spec: unknown;
    if (typeof item === 'string') {
      name = item;
    } else if (isPlainObject(item) && Object.keys(item).length === 1) {
      name = Object.keys(item)[0] as string;
      spec = item[name];
    } else {
      throw invalid(path, 'type', 'a sort key is a field name or { "<field>": "asc" | "desc" | { order, missing } }');
    }
    const at = `${path}.${name}`;
    let order: 'asc' | 'desc' | undefined;
    let missing: 'first' | 'last' = 'last';
    if (typeof spec === 'string') {
      order = parseOrder(spec, at);
    } else if (isPlainObject(spec)) {
      for (const key of Object.keys(spec)) if (key !== 'order' && key !== 'missing') throw unsupported(`${at}.${key}`, `sort option "${key}"`);
      if (spec.order !== undefined) order = parseOrder(spec.order, `${at}.order`);
      if (spec.missing !== undefined) {
        if (spec.missing !== '_first' && spec.missing !== '_last') throw unsupported(`${at}.missing`, 'a missing value other than _first/_last');
        missing = spec.missing === '_first' ? 'first' : 'last';
      }
    } else if (spec !== undefined) {
      throw invalid(at, 'type', 'expected "asc", "desc" or an options object');
    }
    refuseColonSort(name, at, (base) => fields.resolve(base, at));
    if (name === '_score') return { kind: 'score', order: order ?? 'desc' };
    if (name.startsWith('_')) throw unsupported(at, `sorting by ${name}`);
    return { kind: 'field', field: fields.resolve(name, at), order: order ?? 'asc', missing };
  });
}

function parseAggregations(value: unknown, path: string, fields: FieldResolver): TermsAggregation[] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) throw malformed(path, 'aggregations must be an object of named aggregations');
  const names = Object.keys(value);
  if (names.length > MAX_AGGREGATIONS) throw invalid(path, 'max', `at most ${MAX_AGGREGATIONS} aggregations`);
  return names.map((name) => {
    const at = `${path}.${name}`;
    const agg = value[name];
    if (!isPlainObject(agg)) throw malformed(at, 'an aggregation must be an object');
    for (const key of Object.keys(agg))
      if (key !== 'terms') throw unsupported(`${at}.${key}`, key === 'aggs' || key === 'aggregations' ? 'sub-aggregations' : `aggregation "${key}"`);
    const terms = agg.terms;
    if (!isPlainObject(terms)) throw invalid(at, 'required', 'only terms aggregations are supported: { "terms": { "field": … } }');
    for (const key of Object.keys(terms)) if (key !== 'field' && key !== 'size') throw unsupported(`${at}.terms.${key}`, `terms option "${key}"`);
    return {
      name,
      field: fields.resolve(terms.field, `${at}.terms.field`),
      size: integerIn(terms.size, `${at}.terms.size`, 1, MAX_SEARCH_SIZE, 10),
    };
  });
}
