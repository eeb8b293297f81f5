/**
 * Compiles a `QueryNode` into a SQL condition and a score expression over one row (`id`, `source`, the per-field
 * word columns). `allWords` is the index's `allWordsExpression`: full-text clauses test it first, which the GIN
 * index on that expression serves. A condition may be NULL where a field is missing: `where` treats that as false,
 * and `must_not` and `minimum_should_match` counting coalesce it, so leaf conditions stay index-friendly. Scores follow Elasticsearch's shape:
 * full-text clauses score with `ts_rank`, other clauses score their boost (1.0), `bool` adds up its `must`
 * and matching `should` clauses, and `filter` / `must_not` do not score.
 */
import type { FieldRef, QueryNode, RangeBounds, Scalar } from '../dsl/ast';
import { TEXT_SEARCH_CONFIG, jsonOf, textOf, tokensOf, typedParam, valueOf, vectorOf } from './field-sql';
import type { SqlParams } from './sql-params';

export interface CompiledQuery {
  where: string;
  score: string;
}

const NEVER: CompiledQuery = { where: 'false', score: '0' };
const constant = (where: string, boost: number): CompiledQuery => ({ where: `(${where})`, score: number(boost) });
const isTrue = (where: string): string => `coalesce(${where}, false)`;
const number = (n: number): string => `(${Number(n)})::float8`;

export function compileQuery(node: QueryNode, params: SqlParams, allWords: string): CompiledQuery {
  const add = (v: unknown, cast: string) => params.add(v, cast);
  switch (node.kind) {
    case 'match_all':
      return { where: 'true', score: number(node.boost) };
    case 'match':
      return fullText(node.field, wordQueries(node.query, params), node.operator, node.minimumShouldMatch, node.boost, allWords);
    case 'match_phrase':
      return phrase(node.field, params.add(node.query, 'text'), node.boost, allWords);
    case 'multi_match':
      return multiMatch(node, params, allWords);
    case 'term':
      return constant(term(node.field, node.value, node.caseInsensitive, params), node.boost);
    case 'terms':
      return node.values.length === 0 ? NEVER : constant(terms(node.field, node.values, params), node.boost);
    case 'range':
      return constant(range(node.field, node.bounds, add), node.boost);
    case 'exists':
      return constant(`coalesce(jsonb_typeof(${jsonOf(node.field.name)}), 'null') <> 'null'`, node.boost);
    case 'prefix':
      return constant(like(node.field, `${escapeLike(node.value)}%`, node.caseInsensitive, params), node.boost);
    case 'wildcard':
      return constant(like(node.field, wildcardToLike(node.pattern), node.caseInsensitive, params), node.boost);
    case 'ids':
      return node.values.length === 0
        ? NEVER
        : constant(`id in (select jsonb_array_elements_text(${params.add(JSON.stringify(node.values), 'jsonb')}))`, node.boost);
    case 'bool':
      return bool(node, params, allWords);
  }
}

/** One `plainto_tsquery` per whitespace-separated word, so `operator` and `minimum_should_match` can count words. */
function wordQueries(query: string, params: SqlParams): string[] {
  return query
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => `plainto_tsquery(${TEXT_SEARCH_CONFIG}, ${params.add(w, 'text')})`);
}

function fullText(
  field: FieldRef,
  words: string[],
  operator: 'and' | 'or',
  minimumShouldMatch: ((n: number) => number) | undefined,
  boost: number,
  allWords: string,
): CompiledQuery {
  if (words.length === 0) return NEVER;
  const vector = vectorOf(field.name);
  const query = `(${words.join(operator === 'and' ? ' && ' : ' || ')})`;
  let where = `${vector} @@ ${query}`;
  if (operator === 'or' && minimumShouldMatch !== undefined) {
    const required = Math.max(1, minimumShouldMatch(words.length));
    if (required > words.length) return NEVER;
    where = `(${words.map((w) => `(${isTrue(`${vector} @@ ${w}`)})::int`).join(' + ')}) >= ${required}`;
  }
  // `allWords` holds every string field's words, so it matches whenever the field does: a GIN-indexed pre-filter.
  return { where: `(${allWords} @@ ${query} and ${where})`, score: `(ts_rank(${vector}, ${query}) * ${number(boost)})` };
}

function phrase(field: FieldRef, text: string, boost: number, allWords: string): CompiledQuery {
  const vector = vectorOf(field.name);
  const query = `phraseto_tsquery(${TEXT_SEARCH_CONFIG}, ${text})`;
  return { where: `(${allWords} @@ ${query} and ${vector} @@ ${query})`, score: `(ts_rank(${vector}, ${query}) * ${number(boost)})` };
}

function multiMatch(node: Extract<QueryNode, { kind: 'multi_match' }>, params: SqlParams, allWords: string): CompiledQuery {
  if (node.fields.length === 0) return NEVER;
  const words = node.type === 'phrase' ? [] : wordQueries(node.query, params);
  const text = node.type === 'phrase' ? params.add(node.query, 'text') : '';
  const perField = node.fields.map(({ field, boost }) =>
    node.type === 'phrase' ? phrase(field, text, boost, allWords) : fullText(field, words, node.operator, undefined, boost, allWords),
  );
  const scores = perField.map((c) => `(case when ${c.where} then ${c.score} else 0 end)`);
  const combined = node.type === 'most_fields' ? scores.join(' + ') : `greatest(${scores.join(', ')})`;
  return { where: `(${perField.map((c) => c.where).join(' or ')})`, score: `((${combined}) * ${number(node.boost)})` };
}

/**
 * `field.keyword`, numbers and booleans compare the whole value (a jsonb containment the GIN index serves);
 * a plain string field holds words, so `term` matches one of its words, as on an Elasticsearch text field.
 */
function term(field: FieldRef, value: Scalar, caseInsensitive: boolean, params: SqlParams): string {
  if (field.type === 'timestamp') return `${valueOf(field)} = ${params.add(value, 'timestamptz')}`;
  if (field.type === 'string' && !field.keyword) {
    const word = params.add(caseInsensitive ? String(value).toLowerCase() : value, 'text');
    return `${word} = any(${tokensOf(field.name)})`;
  }
  if (field.type === 'string' && caseInsensitive) return `lower(${textOf(field.name)}) = lower(${params.add(value, 'text')})`;
  return `source @> ${params.add(JSON.stringify({ [field.name]: value }), 'jsonb')}`;
}

function terms(field: FieldRef, values: Scalar[], params: SqlParams): string {
  const list = params.add(JSON.stringify(values), 'jsonb');
  if (field.type === 'timestamp') return `${valueOf(field)} in (select v::timestamptz from jsonb_array_elements_text(${list}) v)`;
  if (field.type === 'string' && !field.keyword) return `${tokensOf(field.name)} && array(select jsonb_array_elements_text(${list}))`;
  // A scalar is contained in an array holding it: `"a" <@ ["a","b"]`, `2 <@ [1,2]`.
  return `${jsonOf(field.name)} <@ ${list}`;
}

const RANGE_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function range(field: FieldRef, bounds: RangeBounds, add: (v: unknown, cast: string) => string): string {
  const analysed = field.type === 'string' && !field.keyword;
  const subject = analysed ? '(w collate "C")' : valueOf(field);
  const checks = (Object.keys(RANGE_OPERATORS) as (keyof RangeBounds)[])
    .filter((op) => bounds[op] !== undefined)
    .map((op) => `${subject} ${RANGE_OPERATORS[op]} ${typedParam(field, bounds[op] as Scalar, add)}`);
  const condition = checks.length === 0 ? `${subject} is not null` : checks.join(' and ');
  return analysed ? `exists (select 1 from unnest(${tokensOf(field.name)}) w where ${condition})` : condition;
}

function like(field: FieldRef, pattern: string, caseInsensitive: boolean, params: SqlParams): string {
  const operator = caseInsensitive ? 'ilike' : 'like';
  const bound = params.add(pattern, 'text');
  if (field.keyword) return `${textOf(field.name)} ${operator} ${bound}`;
  return `exists (select 1 from unnest(${tokensOf(field.name)}) w where w ${operator} ${bound})`;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

/** Elasticsearch wildcards: `*` any run, `?` one character, `\` escapes the next character. */
function wildcardToLike(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) out += escapeLike(pattern[++i] as string);
    else if (c === '*') out += '%';
    else if (c === '?') out += '_';
    else out += escapeLike(c);
  }
  return out;
}

function bool(node: Extract<QueryNode, { kind: 'bool' }>, params: SqlParams, allWords: string): CompiledQuery {
  const compile = (n: QueryNode): CompiledQuery => compileQuery(n, params, allWords);
  const must = node.must.map(compile);
  const should = node.should.map(compile);
  const filter = node.filter.map(compile);
  const mustNot = node.mustNot.map(compile);
  const conditions = [...must, ...filter].map((c) => c.where).concat(mustNot.map((c) => `not ${isTrue(c.where)}`));
  if (node.minimumShouldMatch > 0) {
    if (node.minimumShouldMatch > should.length) return NEVER;
    conditions.push(`(${should.map((c) => `(${isTrue(c.where)})::int`).join(' + ')}) >= ${node.minimumShouldMatch}`);
  }
  const scores = must.map((c) => c.score).concat(should.map((c) => `(case when ${c.where} then ${c.score} else 0 end)`));
  const empty = must.length + should.length + filter.length + mustNot.length === 0;
  const score = scores.length > 0 ? `((${scores.join(' + ')}) * ${number(node.boost)})` : empty ? number(node.boost) : '0';
  return { where: conditions.length > 0 ? `(${conditions.join(' and ')})` : 'true', score };
}
