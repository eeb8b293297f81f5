/** Contract cases: sort, from/size, `_source` filtering, terms aggregations and `track_total_hits`. */
import { idsOf, sortedIdsOf, type ContractContext } from './contract-context';

export function requestCases(ctx: ContractContext): void {
  test('sort by a field, ascending and descending; no scores when not sorted by score', async () => {
    const asc = await ctx.search({ sort: [{ price: 'asc' }] });
    expect(idsOf(asc)).toEqual(['p4', 'p5', 'p2', 'p6', 'p1', 'p3']);
    expect(asc.hits.max_score).toBeNull();
    expect(asc.hits.hits.every((h) => h._score === null)).toBe(true);
    expect(idsOf(await ctx.search({ sort: { price: { order: 'desc' } } }))).toEqual(['p3', 'p1', 'p6', 'p2', 'p5', 'p4']);
    expect(idsOf(await ctx.search({ sort: ['released'] }))).toEqual(['p4', 'p3', 'p1', 'p2', 'p5', 'p6']);
  });

  test('sort by several keys, by string fields, and with missing values last', async () => {
    expect(idsOf(await ctx.search({ sort: [{ 'category.keyword': 'asc' }, { price: 'desc' }] }))).toEqual(['p6', 'p5', 'p2', 'p4', 'p3', 'p1']);
    expect(idsOf(await ctx.search({ sort: [{ category: 'desc' }, { stock: 'asc' }] }))).toEqual(['p3', 'p1', 'p2', 'p4', 'p6', 'p5']);
    const byDescription = idsOf(await ctx.search({ sort: [{ description: 'desc' }] }));
    expect(byDescription[5]).toBe('p6');
    expect(idsOf(await ctx.search({ sort: [{ description: { order: 'asc', missing: '_first' } }] }))[0]).toBe('p6');
  });

  test('sort by _score then a field', async () => {
    const response = await ctx.search({ query: { match: { description: 'shoes hiking' } }, sort: ['_score', { price: 'asc' }] });
    expect(idsOf(response)[0]).toBe('p3');
    expect(typeof response.hits.hits[0]?._score).toBe('number');
    const ties = await ctx.search({ query: { bool: { filter: { match_all: {} } } }, sort: [{ _score: 'desc' }, { stock: 'desc' }] });
    expect(idsOf(ties)).toEqual(['p4', 'p2', 'p5', 'p1', 'p6', 'p3']);
  });

  test('from and size page through the sorted hits; total counts every hit', async () => {
    const page = await ctx.search({ sort: [{ price: 'asc' }], from: 2, size: 2 });
    expect(idsOf(page)).toEqual(['p2', 'p6']);
    expect(page.hits.total).toEqual({ value: 6, relation: 'eq' });
    const beyond = await ctx.search({ sort: [{ price: 'asc' }], from: 10 });
    expect(beyond.hits.hits).toEqual([]);
    expect(beyond.hits.total?.value).toBe(6);
    const none = await ctx.search({ size: 0 });
    expect(none.hits.hits).toEqual([]);
    expect(none.hits.total?.value).toBe(6);
    expect((await ctx.search({ size: 3, sort: ['stock'] })).hits.hits).toHaveLength(3);
  });

  test('size defaults to 10 and is capped at 1000', async () => {
    expect((await ctx.search({})).hits.hits).toHaveLength(6);
    await expect(ctx.search({ size: 1001 })).rejects.toMatchObject({ code: 'DB_VALIDATION', details: { field: 'payload.size', rule: 'max' } });
    await expect(ctx.search({ size: -1 })).rejects.toMatchObject({ code: 'DB_VALIDATION', details: { field: 'payload.size' } });
  });

  test('_source: false, a pattern, a list, includes and excludes', async () => {
    const query = { ids: { values: ['p1'] } };
    const without = await ctx.search({ query, _source: false });
    expect(without.hits.hits[0]).not.toHaveProperty('_source');
    expect((await ctx.search({ query, _source: 'name' })).hits.hits[0]?._source).toEqual({ name: 'Red Running Shoes' });
    expect((await ctx.search({ query, _source: ['name', 'price'] })).hits.hits[0]?._source).toEqual({ name: 'Red Running Shoes', price: 89.99 });
    expect((await ctx.search({ query, _source: { includes: ['*'], excludes: ['desc*', 'secret', 'attrs', 're*'] } })).hits.hits[0]?._source).toEqual({
      name: 'Red Running Shoes',
      category: 'footwear',
      price: 89.99,
      stock: 12,
      active: true,
    });
    expect((await ctx.search({ query, _source: true })).hits.hits[0]?._source).toEqual(expect.objectContaining({ attrs: { color: 'red' } }));
  });

  test('terms aggregation: counts per value, count then key order, size and other count', async () => {
    const response = await ctx.search({ size: 0, aggs: { categories: { terms: { field: 'category.keyword' } } } });
    expect(response.aggregations?.categories).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 'accessories', doc_count: 2 },
        { key: 'apparel', doc_count: 2 },
        { key: 'footwear', doc_count: 2 },
      ],
    });
    const limited = await ctx.search({ size: 0, query: { term: { active: true } }, aggregations: { c: { terms: { field: 'category', size: 1 } } } });
    expect(limited.aggregations?.c).toEqual({ doc_count_error_upper_bound: 0, sum_other_doc_count: 2, buckets: [{ key: 'apparel', doc_count: 2 }] });
  });

  test('terms aggregation on numbers and booleans', async () => {
    const response = await ctx.search({ size: 0, aggs: { active: { terms: { field: 'active' } }, stock: { terms: { field: 'stock', size: 2 } } } });
    expect(response.aggregations?.active?.buckets).toEqual([
      { key: 1, key_as_string: 'true', doc_count: 4 },
      { key: 0, key_as_string: 'false', doc_count: 2 },
    ]);
    expect(response.aggregations?.stock?.buckets).toEqual([
      { key: 0, doc_count: 1 },
      { key: 5, doc_count: 1 },
    ]);
    expect(response.aggregations?.stock?.sum_other_doc_count).toBe(4);
  });

  test('track_total_hits: exact, capped, or left out', async () => {
    expect((await ctx.search({ track_total_hits: true })).hits.total).toEqual({ value: 6, relation: 'eq' });
    expect((await ctx.search({ track_total_hits: 2 })).hits.total).toEqual({ value: 2, relation: 'gte' });
    expect((await ctx.search({ track_total_hits: 6 })).hits.total).toEqual({ value: 6, relation: 'eq' });
    const untracked = await ctx.search({ track_total_hits: false });
    expect(untracked.hits.total).toBeUndefined();
    expect(sortedIdsOf(untracked)).toHaveLength(6);
    expect(untracked.hits.max_score).toBe(1);
    const ranked = await ctx.search({ query: { match: { description: 'shoes hiking' } }, track_total_hits: false, size: 1 });
    expect(idsOf(ranked)).toEqual(['p3']);
    expect(ranked.hits.max_score).toBe(ranked.hits.hits[0]?._score);
  });
}
