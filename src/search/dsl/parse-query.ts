/**
 * Parses the `query` part of a search body into a `QueryNode`, accepting exactly the documented subset.
 * Anything else is refused with the path of the clause or parameter, so callers know what to change.
 */
import type { FieldRef, MinimumShouldMatch, MultiMatchType, QueryNode, RangeBounds, Scalar } from './ast';
import { coerceValue, requireBoolean, requireBoost, requireString } from './coerce';
import { invalid, isPlainObject, malformed, unsupported } from './errors';
import type { FieldResolver } from './fields';

const MAX_DEPTH = 20;
const MAX_CLAUSES = 1024;
const MAX_TERMS = 1024;
const MAX_QUERY_WORDS = 64;

interface Context {
  fields: FieldResolver;
  clauses: number;
}

export function parseQuery(clause: unknown, path: string, fields: FieldResolver): QueryNode {
  return parseClause(clause, path, { fields, clauses: 0 }, 0);
}

function parseClause(clause: unknown, path: string, ctx: Context, depth: number): QueryNode {
  if (depth > MAX_DEPTH) throw invalid(path, 'max-depth', `queries may nest at most ${MAX_DEPTH} levels`);
  if (++ctx.clauses > MAX_CLAUSES) throw invalid(path, 'max-clauses', `a query may hold at most ${MAX_CLAUSES} clauses`);
  if (!isPlainObject(clause)) throw malformed(path, 'a query clause must be an object');
  const keys = Object.keys(clause);
  if (keys.length !== 1) throw invalid(path, 'one-clause', `a query clause must hold exactly one clause type, found ${keys.length}`);
  const kind = keys[0] as string;
  const at = `${path}.${kind}`;
  const body = clause[kind];
  switch (kind) {
    case 'match_all':
      return { kind, boost: leafParams(body, at, []).boost };
    case 'match':
      return parseMatch(body, at, ctx);
    case 'match_phrase':
      return parseMatchPhrase(body, at, ctx);
    case 'multi_match':
      return parseMultiMatch(body, at, ctx);
    case 'term':
      return parseTerm(body, at, ctx);
    case 'terms':
      return parseTerms(body, at, ctx);
    case 'range':
      return parseRange(body, at, ctx);
    case 'exists': {
      const params = leafParams(body, at, ['field']);
      return { kind, field: ctx.fields.resolve(params.raw.field, `${at}.field`), boost: params.boost };
    }
    case 'prefix':
    case 'wildcard':
      return parsePattern(kind, body, at, ctx);
    case 'ids':
      return parseIds(body, at);
    case 'bool':
      return parseBool(body, at, ctx, depth);
    default:
      throw unsupported(at, `query clause "${kind}"`);
  }
}

/** Checks that `body` is an object holding only `allowed` keys and `boost`. */
function leafParams(body: unknown, path: string, allowed: readonly string[]): { raw: Record<string, unknown>; boost: number } {
  if (!isPlainObject(body)) throw malformed(path, 'expected an object');
  for (const key of Object.keys(body)) {
    if (key !== 'boost' && !allowed.includes(key)) throw unsupported(`${path}.${key}`, `parameter "${key}"`);
  }
  return { raw: body, boost: body.boost === undefined ? 1 : requireBoost(body.boost, `${path}.boost`) };
}

/** `{ <field>: <value or options> }`, the form of match, term, range, prefix, …. */
function fieldEntry(body: unknown, path: string, ctx: Context): { field: FieldRef; value: unknown; path: string } {
  if (!isPlainObject(body)) throw malformed(path, 'expected an object naming one field');
  const keys = Object.keys(body);
  if (keys.length !== 1) throw invalid(path, 'one-field', `expected exactly one field, found ${keys.length}`);
  const name = keys[0] as string;
  return { field: ctx.fields.resolve(name, `${path}.${name}`), value: body[name], path: `${path}.${name}` };
}

/** The short form (`"text"`) or the options form (`{ query: "text", … }`) of a field's value. */
function options(value: unknown, path: string, valueKey: string, allowed: readonly string[]) {
  if (!isPlainObject(value)) return { main: value, raw: {} as Record<string, unknown>, boost: 1 };
  const { raw, boost } = leafParams(value, path, [valueKey, ...allowed]);
  if (raw[valueKey] === undefined) throw invalid(`${path}.${valueKey}`, 'required', `"${valueKey}" is required`);
  return { main: raw[valueKey], raw, boost };
}

function parseOperator(value: unknown, path: string): 'and' | 'or' {
  if (value === undefined) return 'or';
  const op = typeof value === 'string' ? value.toLowerCase() : value;
  if (op === 'and' || op === 'or') return op;
  throw invalid(path, 'enum', 'operator must be "and" or "or"');
}

export function parseMinimumShouldMatch(value: unknown, path: string): MinimumShouldMatch {
  if (typeof value === 'number' && Number.isInteger(value)) return (n) => (value >= 0 ? value : Math.max(0, n + value));
  const m = typeof value === 'string' ? /^(-?)(\d+)(%?)$/.exec(value.trim()) : null;
  if (m === null) {
    if (typeof value === 'string' && value.includes('<')) throw unsupported(path, 'conditional minimum_should_match');
    throw invalid(path, 'type', 'minimum_should_match must be an integer or a percentage like "75%" or "-25%"');
  }
  const k = Number(m[2]);
  const negative = m[1] === '-';
  const percent = m[3] === '%';
  return (n) => {
    const x = percent ? Math.floor((n * k) / 100) : k;
    return negative ? Math.max(0, n - x) : x;
  };
}

function words(query: string, path: string): string[] {
  const list = query.split(/\s+/).filter((w) => w.length > 0);
  if (list.length > MAX_QUERY_WORDS) throw invalid(path, 'max-terms', `at most ${MAX_QUERY_WORDS} words per query`);
  return list;
}

/** `match` and `match_phrase` on anything but an analysed string field compare the whole value, like `term`. */
const asTerm = (field: FieldRef, value: unknown, path: string, boost: number): QueryNode => ({
  kind: 'term',
  field,
  value: coerceValue(field, value, path),
  caseInsensitive: false,
  boost,
});

function parseMatch(body: unknown, path: string, ctx: Context): QueryNode {
  const entry = fieldEntry(body, path, ctx);
  const opts = options(entry.value, entry.path, 'query', ['operator', 'minimum_should_match']);
  if (entry.field.type !== 'string' || entry.field.keyword) return asTerm(entry.field, opts.main, `${entry.path}.query`, opts.boost);
  const query = requireString(opts.main, entry.path);
  words(query, entry.path);
  const msm = opts.raw.minimum_should_match;
  return {
    kind: 'match',
    field: entry.field,
    query,
    operator: parseOperator(opts.raw.operator, `${entry.path}.operator`),
    ...(msm === undefined ? {} : { minimumShouldMatch: parseMinimumShouldMatch(msm, `${entry.path}.minimum_should_match`) }),
    boost: opts.boost,
  };
}

function parseMatchPhrase(body: unknown, path: string, ctx: Context): QueryNode {
  const entry = fieldEntry(body, path, ctx);
  const opts = options(entry.value, entry.path, 'query', []);
  if (entry.field.type !== 'string' || entry.field.keyword) return asTerm(entry.field, opts.main, `${entry.path}.query`, opts.boost);
  return { kind: 'match_phrase', field: entry.field, query: requireString(opts.main, entry.path), boost: opts.boost };
}

const MULTI_MATCH_TYPES: readonly MultiMatchType[] = ['best_fields', 'most_fields', 'phrase'];

function parseMultiMatch(body: unknown, path: string, ctx: Context): QueryNode {
  const { raw, boost } = leafParams(body, path, ['query', 'fields', 'type', 'operator']);
  if (raw.query === undefined) throw invalid(`${path}.query`, 'required', '"query" is required');
  const query = requireString(raw.query, `${path}.query`);
  words(query, `${path}.query`);
  const type = raw.type ?? 'best_fields';
  if (!MULTI_MATCH_TYPES.includes(type as MultiMatchType)) throw unsupported(`${path}.type`, `multi_match type ${JSON.stringify(type)}`);
  const specs = raw.fields === undefined ? ['*'] : typeof raw.fields === 'string' ? [raw.fields] : raw.fields;
  if (!Array.isArray(specs)) throw invalid(`${path}.fields`, 'type', 'fields must be an array of field names');
  const chosen = new Map<string, { field: FieldRef; boost: number }>();
  specs.forEach((spec: unknown, i) => {
    const at = `${path}.fields[${i}]`;
    if (typeof spec !== 'string') throw invalid(at, 'type', 'a field name must be a string');
    const [name = '', weight] = spec.split('^');
    const fieldBoost = weight === undefined ? 1 : Number(weight);
    if (!Number.isFinite(fieldBoost) || fieldBoost < 0) throw invalid(at, 'type', `bad boost in ${JSON.stringify(spec)}`);
    for (const field of ctx.fields.stringFields(name, at)) chosen.set(field.name, { field: { ...field, keyword: false }, boost: fieldBoost });
  });
  return {
    kind: 'multi_match',
    fields: [...chosen.values()],
    query,
    operator: parseOperator(raw.operator, `${path}.operator`),
    type: type as MultiMatchType,
    boost,
  };
}

function parseTerm(body: unknown, path: string, ctx: Context): QueryNode {
  const entry = fieldEntry(body, path, ctx);
  const opts = options(entry.value, entry.path, 'value', ['case_insensitive']);
  const caseInsensitive = opts.raw.case_insensitive === undefined ? false : requireBoolean(opts.raw.case_insensitive, `${entry.path}.case_insensitive`);
  if (opts.main === null) throw invalid(entry.path, 'type', 'term value may not be null');
  return { kind: 'term', field: entry.field, value: coerceValue(entry.field, opts.main, entry.path), caseInsensitive, boost: opts.boost };
}

function parseTerms(body: unknown, path: string, ctx: Context): QueryNode {
  if (!isPlainObject(body)) throw malformed(path, 'expected an object naming one field');
  const boost = body.boost === undefined ? 1 : requireBoost(body.boost, `${path}.boost`);
  const { boost: _ignored, ...rest } = body;
  const entry = fieldEntry(rest, path, ctx);
  if (!Array.isArray(entry.value)) {
    if (isPlainObject(entry.value)) throw unsupported(entry.path, 'terms lookup');
    throw invalid(entry.path, 'type', 'terms expects an array of values');
  }
  if (entry.value.length > MAX_TERMS) throw invalid(entry.path, 'max-terms', `at most ${MAX_TERMS} values`);
  const values: Scalar[] = entry.value.map((v: unknown, i) => coerceValue(entry.field, v, `${entry.path}[${i}]`));
  return { kind: 'terms', field: entry.field, values, boost };
}

function parseRange(body: unknown, path: string, ctx: Context): QueryNode {
  const entry = fieldEntry(body, path, ctx);
  if (entry.field.type === 'boolean') throw invalid(entry.path, 'field-type', `range does not apply to boolean field ${entry.field.name}`);
  const { raw, boost } = leafParams(entry.value, entry.path, ['gt', 'gte', 'lt', 'lte']);
  const bounds: RangeBounds = {};
  for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
    if (raw[op] !== undefined && raw[op] !== null) bounds[op] = coerceValue(entry.field, raw[op], `${entry.path}.${op}`);
  }
  return { kind: 'range', field: entry.field, bounds, boost };
}

function parsePattern(kind: 'prefix' | 'wildcard', body: unknown, path: string, ctx: Context): QueryNode {
  const entry = fieldEntry(body, path, ctx);
  if (entry.field.type !== 'string') throw invalid(entry.path, 'field-type', `${kind} applies to string fields only`);
  const aliases = kind === 'wildcard' && isPlainObject(entry.value) && entry.value.wildcard !== undefined;
  const opts = aliases ? options(entry.value, entry.path, 'wildcard', ['case_insensitive']) : options(entry.value, entry.path, 'value', ['case_insensitive']);
  const caseInsensitive = opts.raw.case_insensitive === undefined ? false : requireBoolean(opts.raw.case_insensitive, `${entry.path}.case_insensitive`);
  const text = requireString(opts.main, entry.path);
  return kind === 'prefix'
    ? { kind, field: entry.field, value: text, caseInsensitive, boost: opts.boost }
    : { kind, field: entry.field, pattern: text, caseInsensitive, boost: opts.boost };
}

function parseIds(body: unknown, path: string): QueryNode {
  const { raw, boost } = leafParams(body, path, ['values']);
  if (!Array.isArray(raw.values)) throw invalid(`${path}.values`, 'type', 'ids expects "values": an array of ids');
  if (raw.values.length > MAX_TERMS) throw invalid(`${path}.values`, 'max-terms', `at most ${MAX_TERMS} ids`);
  const values = raw.values.map((v: unknown, i) => requireString(v, `${path}.values[${i}]`));
  return { kind: 'ids', values, boost };
}

function parseBool(body: unknown, path: string, ctx: Context, depth: number): QueryNode {
  const { raw, boost } = leafParams(body, path, ['must', 'should', 'filter', 'must_not', 'minimum_should_match']);
  const list = (key: string): QueryNode[] => {
    const value = raw[key];
    if (value === undefined) return [];
    const items = Array.isArray(value) ? value : [value];
    return items.map((item: unknown, i) => parseClause(item, Array.isArray(value) ? `${path}.${key}[${i}]` : `${path}.${key}`, ctx, depth + 1));
  };
  const must = list('must');
  const should = list('should');
  const filter = list('filter');
  const mustNot = list('must_not');
  const minimumShouldMatch =
    raw.minimum_should_match !== undefined
      ? parseMinimumShouldMatch(raw.minimum_should_match, `${path}.minimum_should_match`)(should.length)
      : should.length > 0 && must.length === 0 && filter.length === 0
        ? 1
        : 0;
  return { kind: 'bool', must, should, filter, mustNot, minimumShouldMatch, boost };
}
