/** The DSL parser: the tree it builds for each supported clause, and the paths its refusals name. */
import { FieldResolver } from '../../../src/search/dsl/fields';
import { parseMinimumShouldMatch, parseQuery } from '../../../src/search/dsl/parse-query';
import { parseSearchBody } from '../../../src/search/dsl/parse-request';
import type { IndexDefinition } from '../../../src/search/search-port';

const INDEX: IndexDefinition = {
  name: 'things',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'count', type: 'integer' },
    { name: 'at', type: 'timestamp' },
    { name: 'on', type: 'boolean' },
    { name: 'blob', type: 'object' },
    { name: 'hidden', type: 'string' },
  ],
};
const resolver = new FieldResolver(INDEX, new Set(['title', 'count', 'at', 'on', 'blob']));
const parse = (query: unknown) => parseQuery(query, 'payload.query', resolver);
const refusal = (query: unknown) => {
  try {
    parse(query);
  } catch (error) {
    return error as { code: string; details: { field: string; rule: string } };
  }
  throw new Error('expected a refusal');
};

describe('parseQuery', () => {
  test('match: short and long forms, operator, minimum_should_match', () => {
    expect(parse({ match: { title: 'a b' } })).toEqual({
      kind: 'match',
      field: { name: 'title', type: 'string', keyword: false },
      query: 'a b',
      operator: 'or',
      boost: 1,
    });
    const long = parse({ match: { title: { query: 'a b', operator: 'AND', boost: 2 } } });
    expect(long).toMatchObject({ operator: 'and', boost: 2 });
  });

  test('match on a keyword or a number becomes a term on the coerced value', () => {
    expect(parse({ match: { 'title.keyword': 'A B' } })).toEqual({
      kind: 'term',
      field: { name: 'title', type: 'string', keyword: true },
      value: 'A B',
      caseInsensitive: false,
      boost: 1,
    });
    expect(parse({ match: { count: '7' } })).toMatchObject({ kind: 'term', value: 7 });
  });

  test('values are coerced to the field type; timestamps normalised to UTC ISO', () => {
    expect(parse({ term: { on: 'true' } })).toMatchObject({ value: true });
    expect(parse({ range: { at: { gte: '2024-01-01T10:00', lt: 0 } } })).toMatchObject({
      bounds: { gte: '2024-01-01T10:00:00.000Z', lt: '1970-01-01T00:00:00.000Z' },
    });
    expect(parse({ terms: { count: [1, '2'] } })).toMatchObject({ values: [1, 2] });
  });

  test('bool: single clauses or arrays; minimum_should_match defaults like Elasticsearch', () => {
    const onlyShould = parse({ bool: { should: [{ match_all: {} }, { match_all: {} }] } });
    expect(onlyShould).toMatchObject({ kind: 'bool', minimumShouldMatch: 1 });
    const withMust = parse({ bool: { must: { match_all: {} }, should: { match_all: {} } } });
    expect(withMust).toMatchObject({ minimumShouldMatch: 0 });
    expect(parse({ bool: { should: [{ match_all: {} }, { match_all: {} }, { match_all: {} }], minimum_should_match: '-34%' } })).toMatchObject({
      minimumShouldMatch: 2,
    });
  });

  test('refusals name the path and the rule', () => {
    expect(refusal({ bool: { filter: [{ match_all: {} }, { regexp: { title: 'a.*' } }] } })).toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload.query.bool.filter[1].regexp', rule: 'unsupported-clause' },
    });
    expect(refusal({ term: { nope: 1 } })).toMatchObject({ details: { field: 'payload.query.term.nope', rule: 'unknown-field' } });
    expect(refusal({ term: { hidden: 'x' } })).toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'payload.query.term.hidden' } });
    expect(refusal({ term: { 'count.keyword': 1 } })).toMatchObject({ details: { rule: 'unknown-field' } });
    expect(refusal({ term: { blob: 'x' } })).toMatchObject({ details: { rule: 'field-type' } });
    expect(refusal({ range: { on: { gt: true } } })).toMatchObject({ details: { rule: 'field-type' } });
    expect(refusal({ terms: { title: { index: 'other', id: '1', path: 'x' } } })).toMatchObject({ details: { rule: 'unsupported-clause' } });
    expect(refusal({ multi_match: { query: 'x', type: 'cross_fields' } })).toMatchObject({ details: { field: 'payload.query.multi_match.type' } });
    expect(refusal({ match: { title: { query: 'x', minimum_should_match: '3<90%' } } })).toMatchObject({ details: { rule: 'unsupported-clause' } });
    expect(refusal({})).toMatchObject({ details: { rule: 'one-clause' } });
    expect(refusal(null)).toMatchObject({ code: 'DB_BAD_REQUEST' });
  });

  test('nesting and clause counts are bounded', () => {
    let deep: unknown = { match_all: {} };
    for (let i = 0; i < 30; i++) deep = { bool: { must: deep } };
    expect(refusal(deep)).toMatchObject({ details: { rule: 'max-depth' } });
    expect(refusal({ bool: { should: Array.from({ length: 1100 }, () => ({ match_all: {} })) } })).toMatchObject({ details: { rule: 'max-clauses' } });
    expect(refusal({ match: { title: Array.from({ length: 65 }, (_, i) => `w${i}`).join(' ') } })).toMatchObject({ details: { rule: 'max-terms' } });
  });
});

describe('parseMinimumShouldMatch', () => {
  test.each([
    [2, 5, 2],
    [-1, 5, 4],
    ['75%', 4, 3],
    ['-25%', 4, 3],
    ['-25%', 3, 3],
    ['50%', 3, 1],
  ])('%p of %p optional clauses requires %p', (spec, n, required) => {
    expect(parseMinimumShouldMatch(spec, 'p')(n)).toBe(required);
  });
});

describe('parseSearchBody', () => {
  const body = (b: unknown) => parseSearchBody(b, resolver);

  test('defaults: match_all, from 0, size 10, scored, track_total_hits 10000', () => {
    expect(body({})).toEqual({
      query: { kind: 'match_all', boost: 1 },
      from: 0,
      size: 10,
      source: { includes: [], excludes: [] },
      aggregations: [],
      trackTotalHits: 10000,
      scored: true,
    });
  });

  test('sort forms; scores kept only when sorting by _score or asked with track_scores', () => {
    const sorted = body({ sort: ['count', { at: 'desc' }, { title: { order: 'desc', missing: '_first' } }] });
    expect(sorted.sort).toEqual([
      { kind: 'field', field: { name: 'count', type: 'integer', keyword: false }, order: 'asc', missing: 'last' },
      { kind: 'field', field: { name: 'at', type: 'timestamp', keyword: false }, order: 'desc', missing: 'last' },
      { kind: 'field', field: { name: 'title', type: 'string', keyword: false }, order: 'desc', missing: 'first' },
    ]);
    expect(sorted.scored).toBe(false);
    expect(body({ sort: ['_score'] }).scored).toBe(true);
    expect(body({ sort: ['count'], track_scores: true }).scored).toBe(true);
  });

  test('refusals of top-level options name them', () => {
    expect(() => body({ from: 9995, size: 10 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'payload.from', rule: 'max' }) }));
    expect(() => body({ suggest: {} })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'payload.suggest', rule: 'unsupported-clause' }) }),
    );
    expect(() => body({ sort: ['_id'] })).toThrow(expect.objectContaining({ details: expect.objectContaining({ rule: 'unsupported-clause' }) }));
    expect(() => body({ aggs: { a: { terms: { field: 'count' }, aggs: {} } } })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'payload.aggs.a.aggs', rule: 'unsupported-clause' }) }),
    );
    expect(() => body({ _source: { include: ['x'] } })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'payload._source.include' }) }),
    );
  });
});
