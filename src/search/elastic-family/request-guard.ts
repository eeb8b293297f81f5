/**
 * Shapes a caller's search body into the request sent to Elasticsearch. The adapter accepts the engine's
 * whole query DSL, so instead of parsing a subset it walks the body and:
 *  - keeps only known top-level keys (never `index`: the target is always the entity's own index), and
 *    refuses `index` keys inside clauses (terms lookup, more_like_this, indexed shapes read other indices);
 *  - refuses, with DB_FORBIDDEN, any field reference to a field the caller may not read, any clause that can
 *    read fields it does not name (`query_string`, scripts, …) when such hidden fields exist, and, for a
 *    caller with restricted fields, clauses returning stored values outside `_source` (`top_hits`, …);
 *  - narrows `multi_match` fields (absent or patterns) to the readable string fields;
 *  - points sorts and aggregations on a string field at its `keyword` sub-field (text cannot be sorted).
 */
import type { SourceFilter } from '../dsl/ast';
import { forbiddenClause, forbiddenField, invalid, isPlainObject, malformed, refuseColonSort, unsupported } from '../dsl/errors';
import { FieldResolver, wildcardToRegExp } from '../dsl/fields';
import { parsePaging, refuseIndexKeys } from '../dsl/parse-request';
import type { IndexDefinition } from '../search-port';
import { parseSourceFilter } from '../source-filter';

const TOP_LEVEL = new Set([
  'query',
  'post_filter',
  'from',
  'size',
  'sort',
  '_source',
  'aggs',
  'aggregations',
  'track_total_hits',
  'track_scores',
  'search_after',
  'min_score',
]);
/** Clauses that read fields they do not name (query strings, scripts, similar-document lookups). */
const IMPLICIT_FIELDS = new Set([
  'query_string',
  'simple_query_string',
  'more_like_this',
  'script',
  'script_score',
  'percolate',
  '_script',
  'minimum_should_match_script',
]);
/** Clauses that return stored values themselves (documents, highlights), outside the filtered `_source`. */
const RETURNS_VALUES = new Set(['top_hits', 'inner_hits', 'highlight', 'docvalue_fields', 'script_fields', 'stored_fields']);
/** Keys whose string value names a field. */
const FIELD_VALUE_KEYS = new Set(['field', 'default_field', 'path', 'minimum_should_match_field']);

export interface GuardedSearch {
  /** Keys for `client.search`, without `index`. */
  params: Record<string, unknown>;
  /** The caller's `_source` filter, applied again to each hit with the readable fields. */
  source: SourceFilter;
}

class Guard {
  private readonly fields: FieldResolver;
  private readonly hidden: string[];
  private readonly strings: Set<string>;

  constructor(
    definition: IndexDefinition,
    private readonly readable?: ReadonlySet<string>,
  ) {
    this.fields = new FieldResolver(definition, readable);
    this.hidden = definition.fields.map((f) => f.name).filter((name) => !this.fields.isReadable(name));
    this.strings = new Set(definition.fields.filter((f) => f.type === 'string').map((f) => f.name));
  }

  isHidden(name: string): boolean {
    return this.hidden.includes(name);
  }

  /** Refuses a field name, or a `*` pattern, that reaches a hidden field. `name^2` boosts are ignored. */
  checkField(name: string, path: string): void {
    const bare = name.split('^')[0] as string;
    if (bare.includes('*')) {
      const re = wildcardToRegExp(bare);
      const hit = this.hidden.find((h) => re.test(h) || re.test(`${h}.keyword`));
      if (hit !== undefined) throw forbiddenField(path, hit);
      return;
    }
    const base = bare.split('.')[0] as string;
    if (this.hidden.includes(base)) throw forbiddenField(path, base);
  }

  private keywordOf(name: string): string {
    return this.strings.has(name) ? `${name}.keyword` : name;
  }

  walk(node: unknown, path: string, inAggregations: boolean): unknown {
    if (Array.isArray(node)) return node.map((item, i) => this.walk(item, `${path}[${i}]`, inAggregations));
    if (!isPlainObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}.${key}`;
      // Terms lookups, more_like_this documents and indexed shapes can read other indices.
      if (key === 'index' || key === '_index') throw invalid(at, 'not-allowed', 'a search may not read other indices');
      if (this.hidden.length > 0 && IMPLICIT_FIELDS.has(key)) throw forbiddenField(at, this.hidden[0] as string);
      if (this.readable !== undefined && RETURNS_VALUES.has(key)) throw forbiddenClause(at, `"${key}"`);
      this.checkField(key, at);
      if ((key === 'multi_match' || key === 'combined_fields') && this.hidden.length > 0 && isPlainObject(value)) {
        const { fields: requested, ...options } = value;
        const fields = this.readableFields(requested, `${at}.fields`);
        if (fields.length === 0) out.match_none = {};
        else out[key] = { ...(this.walk(options, at, inAggregations) as object), fields };
        continue;
      }
      if (FIELD_VALUE_KEYS.has(key) && typeof value === 'string') {
        this.checkField(value, at);
        out[key] = inAggregations ? this.keywordOf(value) : value;
        continue;
      }
      if (key === 'fields' && Array.isArray(value)) value.forEach((f, i) => typeof f === 'string' && this.checkField(f, `${at}[${i}]`));
      out[key] = this.walk(value, at, inAggregations);
    }
    return out;
  }

  /** `multi_match` fields narrowed to readable string fields; absent means every field, as in Elasticsearch. */
  private readableFields(specs: unknown, path: string): string[] {
    const list = specs === undefined ? ['*'] : typeof specs === 'string' ? [specs] : specs;
    if (!Array.isArray(list)) throw invalid(path, 'type', 'fields must be an array of field names');
    return list.flatMap((spec: unknown, i) => {
      if (typeof spec !== 'string') throw invalid(`${path}[${i}]`, 'type', 'a field name must be a string');
      const [name = '', boost] = spec.split('^');
      const suffix = boost === undefined ? '' : `^${boost}`;
      if (!name.includes('*')) {
        this.checkField(name, `${path}[${i}]`);
        return [spec];
      }
      return this.fields.stringFields(name, `${path}[${i}]`).map((f) => `${f.name}${suffix}`);
    });
  }

  sort(value: unknown, path: string): unknown {
    if (Array.isArray(value)) return value.map((item, i) => this.sort(item, `${path}[${i}]`));
    const one = (name: string, at: string): string => {
      if (name === '_score' || name === '_doc') return name;
      if (this.hidden.length > 0 && IMPLICIT_FIELDS.has(name)) throw forbiddenField(at, this.hidden[0] as string);
      refuseColonSort(name, at, (base) => this.checkField(base, at));
      this.checkField(name, at);
      return this.keywordOf(name);
    };
    if (typeof value === 'string') return one(value, `${path}.${value}`);
    if (!isPlainObject(value)) throw invalid(path, 'type', 'a sort key is a field name or an object');
    // Options name fields too (`nested.path`, `nested.filter`, `_geo_distance`'s field): walked like a query.
    return Object.fromEntries(Object.entries(value).map(([name, spec]) => [one(name, `${path}.${name}`), this.walk(spec, `${path}.${name}`, false)]));
  }
}

/** The readable part of a `_source` filter, for Elasticsearch to drop hidden fields before they travel. */
function sourceParam(filter: SourceFilter, readable?: ReadonlySet<string>): unknown {
  if (filter === false) return false;
  const includes = readable === undefined ? filter.includes : [...readable];
  if (includes.length === 0 && filter.excludes.length === 0) return undefined;
  return { ...(includes.length > 0 ? { includes } : {}), ...(filter.excludes.length > 0 ? { excludes: filter.excludes } : {}) };
}

export function guardSearch(body: unknown, definition: IndexDefinition, readable?: ReadonlySet<string>): GuardedSearch {
  if (body === undefined || body === null) body = {};
  if (!isPlainObject(body)) throw malformed('payload', 'a search payload must be a JSON object');
  refuseIndexKeys(body);
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) throw unsupported(`payload.${key}`, `search option "${key}"`);
  const guard = new Guard(definition, readable);
  const source = parseSourceFilter(body._source, 'payload._source', (name) => guard.isHidden(name));
  const params: Record<string, unknown> = { ...parsePaging(body) };
  if (readable !== undefined && readable.size === 0 && source !== false) params._source = false;
  else if (sourceParam(source, readable) !== undefined) params._source = sourceParam(source, readable);
  for (const key of ['query', 'post_filter'] as const) if (body[key] !== undefined) params[key] = guard.walk(body[key], `payload.${key}`, false);
  if (body.sort !== undefined) params.sort = guard.sort(body.sort, 'payload.sort');
  const aggs = body.aggs ?? body.aggregations;
  if (aggs !== undefined) params.aggs = guard.walk(aggs, body.aggs === undefined ? 'payload.aggregations' : 'payload.aggs', true);
  for (const key of ['track_total_hits', 'track_scores', 'search_after', 'min_score'] as const) if (body[key] !== undefined) params[key] = body[key];
  return { params, source };
}
