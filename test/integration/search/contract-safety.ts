/** Contract cases: hidden fields, refusals naming the place in the body, and injection attempts. */
import { expectRefusal, sortedIdsOf, type ContractContext } from './contract-context';
import { READABLE_WITHOUT_SECRET } from './search-fixtures';

export function safetyCases(ctx: ContractContext): void {
  const restricted = (body: unknown) => ctx.search(body, READABLE_WITHOUT_SECRET);

  test('a hidden field is never returned in _source; naming one there is DB_FORBIDDEN naming it', async () => {
    for (const source of [true, ['s*', 'name'], { includes: ['*'] }, { excludes: ['secret'] }]) {
      const response = await restricted({ query: { ids: { values: ['p1'] } }, _source: source });
      expect(response.hits.hits).toHaveLength(1);
      expect(response.hits.hits[0]?._source).not.toHaveProperty('secret');
    }
    expect((await restricted({ query: { ids: { values: ['p1'] } } })).hits.hits[0]?._source).toHaveProperty('name');
    await expectRefusal(restricted({ query: { ids: { values: ['p1'] } }, _source: ['secret', 'name'] }), 'DB_FORBIDDEN', {
      field: 'payload._source[0]',
      rule: 'field-not-readable',
    });
    await expectRefusal(restricted({ _source: 'secret' }), 'DB_FORBIDDEN', { field: 'payload._source' });
    await expectRefusal(restricted({ _source: { includes: ['name', 'secret'] } }), 'DB_FORBIDDEN', { field: 'payload._source.includes[1]' });
  });

  test('a hidden field may not be queried, sorted or aggregated (DB_FORBIDDEN naming it)', async () => {
    await expectRefusal(restricted({ query: { term: { secret: 'classified' } } }), 'DB_FORBIDDEN', { field: 'payload.query.term.secret' });
    await expectRefusal(restricted({ query: { bool: { must_not: [{ match: { 'secret.keyword': 'x' } }] } } }), 'DB_FORBIDDEN');
    await expectRefusal(restricted({ query: { exists: { field: 'secret' } } }), 'DB_FORBIDDEN');
    await expectRefusal(restricted({ query: { multi_match: { query: 'x', fields: ['name', 'secret'] } } }), 'DB_FORBIDDEN');
    await expectRefusal(restricted({ sort: [{ secret: 'asc' }] }), 'DB_FORBIDDEN', { field: 'payload.sort[0].secret' });
    await expectRefusal(restricted({ aggs: { s: { terms: { field: 'secret.keyword' } } } }), 'DB_FORBIDDEN');
  });

  test('a hidden field orders nothing, in any sort syntax (the URL\'s "field:order" strings included)', async () => {
    const sorts = [
      'secret',
      'secret:desc',
      'secret.keyword:asc',
      { secret: 'desc' },
      [{ 'secret.keyword': { order: 'desc' } }],
      ['name.keyword', 'secret:asc'],
    ];
    for (const sort of sorts) await expectRefusal(restricted({ sort }), 'DB_FORBIDDEN', { rule: 'field-not-readable', name: 'secret' });
    // A readable field in URL syntax is refused as such, not read as a field named "price:desc".
    await expectRefusal(ctx.search({ sort: 'price:desc' }), 'DB_VALIDATION', { field: 'payload.sort.price:desc', rule: 'unsupported-clause' });
  });

  test('terms_set may not count matches against a hidden field, nor run a script, for a restricted caller', async () => {
    const termsSet = (options: Record<string, unknown>) => ({ query: { terms_set: { 'category.keyword': { terms: ['footwear', 'apparel'], ...options } } } });
    const refusal = ctx.features.subsetOnly ? 'DB_VALIDATION' : 'DB_FORBIDDEN';
    await expectRefusal(restricted(termsSet({ minimum_should_match_field: 'secret' })), refusal);
    await expectRefusal(restricted(termsSet({ minimum_should_match_script: { source: "doc['secret.keyword'].size()" } })), refusal);
  });

  test('fields named by pattern, or by default, leave hidden fields out', async () => {
    expect(sortedIdsOf(await ctx.search({ query: { multi_match: { query: 'classified' } } }))).toEqual(['p1']);
    expect(sortedIdsOf(await restricted({ query: { multi_match: { query: 'classified' } } }))).toEqual([]);
    expect(sortedIdsOf(await restricted({ query: { multi_match: { query: 'classified', fields: ['s*'] } } }))).toEqual([]);
  });

  test('a body naming another index is refused', async () => {
    await expectRefusal(ctx.search({ index: 'other', query: { match_all: {} } }), 'DB_VALIDATION', { field: 'payload.index', rule: 'not-allowed' });
  });

  test('a body that is not an object is refused', async () => {
    await expectRefusal(ctx.search('match_all'), 'DB_BAD_REQUEST', { field: 'payload' });
    await expectRefusal(ctx.search([{ query: {} }]), 'DB_BAD_REQUEST', { field: 'payload' });
  });

  test('an unknown index is DB_NOT_FOUND; an invalid index name is DB_VALIDATION', async () => {
    await expectRefusal(ctx.index.search('nothing_here', {}), 'DB_NOT_FOUND');
    await expectRefusal(ctx.index.search('products"; drop table products; --', {}), 'DB_VALIDATION', { field: 'index.name' });
  });

  test('injection attempts in values find nothing and change nothing', async () => {
    const attempts = ["'; drop table products; --", "x' or '1'='1", '%', '_', '\\', '") or true --', '*/ select 1 /*'];
    for (const value of attempts) {
      expect(sortedIdsOf(await ctx.search({ query: { match: { name: value } } }))).toEqual([]);
      expect(sortedIdsOf(await ctx.search({ query: { term: { 'name.keyword': value } } }))).toEqual([]);
      expect(sortedIdsOf(await ctx.search({ query: { prefix: { 'name.keyword': value } } }))).toEqual([]);
      expect(sortedIdsOf(await ctx.search({ query: { ids: { values: [value] } } }))).toEqual([]);
      expect(sortedIdsOf(await ctx.search({ query: { match_phrase: { description: value } } }))).toEqual([]);
    }
    expect(sortedIdsOf(await ctx.search({ query: { wildcard: { 'name.keyword': 'W_ter*' } } }))).toEqual([]);
    const named = await ctx.search({ size: 0, aggs: { "a'),(select 1": { terms: { field: 'category.keyword', size: 1 } } } });
    expect(Object.keys(named.aggregations ?? {})).toEqual(["a'),(select 1"]);
    expect((await ctx.search({})).hits.total?.value).toBe(6);
  });

  if (ctx.features.subsetOnly) subsetRefusals(ctx);
}

/** The Postgres adapter knows the subset it supports and every field of the index. */
function subsetRefusals(ctx: ContractContext): void {
  test('an unsupported clause is refused, naming it', async () => {
    await expectRefusal(ctx.search({ query: { fuzzy: { name: 'shoe' } } }), 'DB_VALIDATION', { field: 'payload.query.fuzzy', rule: 'unsupported-clause' });
    await expectRefusal(ctx.search({ query: { bool: { must: [{ match_all: {} }, { query_string: { query: 'a' } }] } } }), 'DB_VALIDATION', {
      field: 'payload.query.bool.must[1].query_string',
      rule: 'unsupported-clause',
    });
    await expectRefusal(ctx.search({ query: { match: { name: { query: 'shoe', fuzziness: 2 } } } }), 'DB_VALIDATION', {
      field: 'payload.query.match.name.fuzziness',
      rule: 'unsupported-clause',
    });
    await expectRefusal(ctx.search({ highlight: { fields: { name: {} } } }), 'DB_VALIDATION', { field: 'payload.highlight', rule: 'unsupported-clause' });
    await expectRefusal(ctx.search({ aggs: { a: { avg: { field: 'price' } } } }), 'DB_VALIDATION', { field: 'payload.aggs.a.avg', rule: 'unsupported-clause' });
  });

  test('an unknown field is refused, naming it, wherever it appears', async () => {
    await expectRefusal(ctx.search({ query: { term: { colour: 'red' } } }), 'DB_VALIDATION', {
      field: 'payload.query.term.colour',
      rule: 'unknown-field',
      name: 'colour',
    });
    await expectRefusal(ctx.search({ query: { term: { "name'); drop table products; --": 'x' } } }), 'DB_VALIDATION', { rule: 'unknown-field' });
    await expectRefusal(ctx.search({ sort: ['price; drop table products'] }), 'DB_VALIDATION', { rule: 'unknown-field' });
    await expectRefusal(ctx.search({ query: { exists: { field: 'price.keyword' } } }), 'DB_VALIDATION', { rule: 'unknown-field' });
    await expectRefusal(ctx.search({ aggs: { a: { terms: { field: 'nope' } } } }), 'DB_VALIDATION', { field: 'payload.aggs.a.terms.field' });
  });

  test('malformed clauses are refused, naming the place', async () => {
    await expectRefusal(ctx.search({ query: { term: { price: 1 }, match_all: {} } }), 'DB_VALIDATION', { field: 'payload.query', rule: 'one-clause' });
    await expectRefusal(ctx.search({ query: { term: { price: 'cheap' } } }), 'DB_VALIDATION', { field: 'payload.query.term.price', rule: 'type' });
    await expectRefusal(ctx.search({ query: { range: { released: { gte: 'now-1d' } } } }), 'DB_VALIDATION', {
      field: 'payload.query.range.released.gte',
      rule: 'date',
    });
    await expectRefusal(ctx.search({ query: { terms: { stock: 5 } } }), 'DB_VALIDATION', { field: 'payload.query.terms.stock' });
    await expectRefusal(ctx.search({ query: { prefix: { price: '1' } } }), 'DB_VALIDATION', { rule: 'field-type' });
    await expectRefusal(ctx.search({ query: { exists: { field: 'attrs' } } }), 'DB_VALIDATION', { rule: 'field-type' });
    await expectRefusal(ctx.search({ query: { bool: { must: 'x' } } }), 'DB_BAD_REQUEST', { field: 'payload.query.bool.must' });
    await expectRefusal(ctx.search({ sort: [{ price: 'up' }] }), 'DB_VALIDATION', { field: 'payload.sort[0].price' });
  });
}
