/** Contract cases: every supported query clause, with the hits it must return. */
import { idsOf, sortedIdsOf, type ContractContext } from './contract-context';

export function queryClauseCases(ctx: ContractContext): void {
  const hits = async (query: unknown) => sortedIdsOf(await ctx.search({ query, size: 100 }));

  test('match_all and an absent query return every document', async () => {
    const all = await ctx.search({ query: { match_all: {} } });
    expect(all.hits.total).toEqual({ value: 6, relation: 'eq' });
    expect(all.hits.hits).toHaveLength(6);
    expect(all.hits.hits.every((h) => h._index === 'products' && h._score === 1)).toBe(true);
    expect(sortedIdsOf(await ctx.search(undefined))).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });

  test('match: any word by default, best match first', async () => {
    const response = await ctx.search({ query: { match: { description: 'shoes hiking' } } });
    expect(sortedIdsOf(response)).toEqual(['p1', 'p3', 'p4']);
    expect(idsOf(response)[0]).toBe('p3');
    expect(response.hits.max_score).toBe(response.hits.hits[0]?._score);
    expect(response.hits.hits.every((h) => typeof h._score === 'number' && h._score > 0)).toBe(true);
  });

  test('match: case-insensitive words, operator and, minimum_should_match', async () => {
    expect(await hits({ match: { name: 'SHOES' } })).toEqual(['p1', 'p3']);
    expect(await hits({ match: { description: { query: 'shoes running', operator: 'and' } } })).toEqual(['p1', 'p3']);
    expect(await hits({ match: { description: { query: 'shoes running hiking', minimum_should_match: 2 } } })).toEqual(['p1', 'p3']);
    expect(await hits({ match: { description: { query: 'shoes running hiking', minimum_should_match: '100%' } } })).toEqual(['p3']);
    expect(await hits({ match: { description: 'unicorn' } })).toEqual([]);
  });

  test('match on a number or keyword compares the whole value', async () => {
    expect(await hits({ match: { stock: 0 } })).toEqual(['p3']);
    expect(await hits({ match: { 'category.keyword': 'apparel' } })).toEqual(['p2', 'p4']);
  });

  test('match_phrase: words in order and adjacent', async () => {
    expect(await hits({ match_phrase: { description: 'for trail running' } })).toEqual(['p3']);
    expect(await hits({ match_phrase: { description: { query: 'Shoes For' } } })).toEqual(['p1', 'p3']);
    expect(await hits({ match_phrase: { description: 'running for' } })).toEqual([]);
  });

  test('multi_match: listed fields, boosts, wildcards, all fields, phrase type', async () => {
    expect(await hits({ multi_match: { query: 'socks', fields: ['name', 'description'] } })).toEqual(['p4']);
    expect(await hits({ multi_match: { query: 'trail', fields: ['name^3', 'desc*'] } })).toEqual(['p3']);
    expect(await hits({ multi_match: { query: 'bottle' } })).toEqual(['p5']);
    expect(await hits({ multi_match: { query: 'running shoes', type: 'phrase', fields: ['name'] } })).toEqual(['p1']);
    expect(await hits({ multi_match: { query: 'warm socks', operator: 'and', fields: ['name', 'description'], type: 'most_fields' } })).toEqual(['p4']);
    const ranked = await ctx.search({ query: { multi_match: { query: 'shoes', fields: ['name^5', 'description'] } } });
    expect(sortedIdsOf(ranked)).toEqual(['p1', 'p3']);
  });

  test('term: keyword, words of a text field, numbers, booleans, timestamps', async () => {
    expect(await hits({ term: { 'category.keyword': 'footwear' } })).toEqual(['p1', 'p3']);
    expect(await hits({ term: { 'name.keyword': 'Trail Shoes' } })).toEqual(['p3']);
    expect(await hits({ term: { 'name.keyword': 'trail shoes' } })).toEqual([]);
    expect(await hits({ term: { 'name.keyword': { value: 'trail shoes', case_insensitive: true } } })).toEqual(['p3']);
    expect(await hits({ term: { name: 'shoes' } })).toEqual(['p1', 'p3']);
    expect(await hits({ term: { name: 'Shoes' } })).toEqual([]);
    expect(await hits({ term: { active: false } })).toEqual(['p3', 'p6']);
    expect(await hits({ term: { price: 12 } })).toEqual(['p4']);
    expect(await hits({ term: { price: '19.99' } })).toEqual(['p5']);
    expect(await hits({ term: { released: '2024-01-10T00:00:00Z' } })).toEqual(['p5']);
    expect(await hits({ term: { released: Date.parse('2024-01-10T00:00:00Z') } })).toEqual(['p5']);
  });

  test('terms: any of the values', async () => {
    expect(await hits({ terms: { 'category.keyword': ['apparel', 'accessories'] } })).toEqual(['p2', 'p4', 'p5', 'p6']);
    expect(await hits({ terms: { stock: [0, 5, 999] } })).toEqual(['p3', 'p6']);
    expect(await hits({ terms: { name: ['socks', 'bottle'] } })).toEqual(['p4', 'p5']);
    expect(await hits({ terms: { active: [true], boost: 2 } })).toEqual(['p1', 'p2', 'p4', 'p5']);
    expect(await hits({ terms: { 'category.keyword': [] } })).toEqual([]);
  });

  test('range: numbers, integers, dates, keywords and words', async () => {
    expect(await hits({ range: { price: { gte: 30, lt: 100 } } })).toEqual(['p1', 'p2', 'p6']);
    expect(await hits({ range: { stock: { gt: 10, lte: 40 } } })).toEqual(['p1', 'p2', 'p5']);
    expect(await hits({ range: { released: { gte: '2023-01-01', lt: '2024-01-10T00:00:00Z' } } })).toEqual(['p1', 'p2']);
    expect(await hits({ range: { released: { lte: Date.parse('2022-01-01T00:00:00Z') } } })).toEqual(['p4']);
    expect(await hits({ range: { 'name.keyword': { gte: 'T', lt: 'W' } } })).toEqual(['p3']);
    expect(await hits({ range: { name: { gte: 'w', lt: 'wz' } } })).toEqual(['p4', 'p5']);
  });

  test('exists: documents holding a non-null value', async () => {
    expect(await hits({ exists: { field: 'description' } })).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(await hits({ exists: { field: 'secret' } })).toEqual(['p1']);
  });

  test('prefix and wildcard: on the whole keyword or on words', async () => {
    expect(await hits({ prefix: { 'name.keyword': 'Wa' } })).toEqual(['p5']);
    expect(await hits({ prefix: { 'name.keyword': { value: 'wa', case_insensitive: true } } })).toEqual(['p5']);
    expect(await hits({ prefix: { name: 'run' } })).toEqual(['p1', 'p2']);
    expect(await hits({ wildcard: { 'name.keyword': '*Shoes' } })).toEqual(['p1', 'p3']);
    expect(await hits({ wildcard: { name: 's?cks' } })).toEqual(['p4']);
    expect(await hits({ wildcard: { description: { value: 'hik*' } } })).toEqual(['p3', 'p4']);
    expect(await hits({ wildcard: { description: { wildcard: 'cold' } } })).toEqual(['p5']);
  });

  test('ids', async () => {
    expect(await hits({ ids: { values: ['p2', 'p5', 'nope'] } })).toEqual(['p2', 'p5']);
  });

  test('bool: must, filter, must_not, should with minimum_should_match', async () => {
    expect(
      await hits({
        bool: {
          must: { match: { description: 'running' } },
          filter: [{ term: { active: true } }],
          must_not: [{ term: { 'category.keyword': 'apparel' } }],
        },
      }),
    ).toEqual(['p1']);
    const should = [{ term: { 'category.keyword': 'footwear' } }, { range: { price: { lt: 20 } } }, { term: { active: false } }];
    expect(await hits({ bool: { should, minimum_should_match: 2 } })).toEqual(['p3']);
    expect(await hits({ bool: { should } })).toEqual(['p1', 'p3', 'p4', 'p5', 'p6']);
    expect(await hits({ bool: { must_not: { exists: { field: 'description' } } } })).toEqual(['p6']);
    expect(await hits({ bool: { filter: { bool: { should: [{ ids: { values: ['p1'] } }, { ids: { values: ['p2'] } }] } } } })).toEqual(['p1', 'p2']);
  });

  test('bool: matching should clauses rank a document higher; filters do not score', async () => {
    const ranked = await ctx.search({ query: { bool: { must: { term: { active: true } }, should: { term: { 'category.keyword': 'footwear' } } } } });
    expect(sortedIdsOf(ranked)).toEqual(['p1', 'p2', 'p4', 'p5']);
    expect(idsOf(ranked)[0]).toBe('p1');
    const filtered = await ctx.search({ query: { bool: { filter: { term: { active: true } } } } });
    expect(filtered.hits.hits.map((h) => h._score)).toEqual([0, 0, 0, 0]);
  });
}
