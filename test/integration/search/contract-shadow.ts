/**
 * Contract cases: shadow builds. A replay fills a shadow beside the live index while the live one keeps
 * answering, then swaps it in at once; the shadow's name is gone afterwards, and a second rebuild works the
 * same way (on Elasticsearch the first swap left the live name an alias, which the second must handle).
 */
import type { IndexDefinition } from '../../../src/search/search-port';
import { expectRefusal, sortedIdsOf, type ContractContext } from './contract-context';

const TICKETS: IndexDefinition = {
  name: 'tickets',
  fields: [
    { name: 'subject', type: 'string' },
    { name: 'priority', type: 'integer' },
  ],
};
const SHADOW = 'tickets__rebuild';
const all = { query: { match_all: {} }, size: 100 };

export function shadowCases(ctx: ContractContext): void {
  const live = (body: unknown = all) => ctx.index.search(TICKETS.name, body);

  beforeAll(async () => {
    await ctx.index.ensureIndex(TICKETS);
    await ctx.index.upsert(TICKETS.name, [
      { id: 't1', version: 1, source: { subject: 'printer jammed', priority: 2 } },
      { id: 't2', version: 1, source: { subject: 'stale ticket', priority: 1 } },
    ]);
  });

  test('a shadow is filled while the live index keeps answering, then swapped in whole', async () => {
    await ctx.index.createShadow({ ...TICKETS, name: SHADOW });
    expect(await ctx.index.exists(SHADOW)).toBe(true);
    await ctx.index.upsert(SHADOW, [
      { id: 't1', version: 2, source: { subject: 'printer fixed', priority: 2 } },
      { id: 't3', version: 1, source: { subject: 'new laptop', priority: 3 } },
    ]);
    expect(sortedIdsOf(await live())).toEqual(['t1', 't2']);
    expect(sortedIdsOf(await ctx.index.search(SHADOW, all))).toEqual(['t1', 't3']);

    await ctx.index.swapShadow(SHADOW, TICKETS.name);

    const after = await live();
    expect(sortedIdsOf(after)).toEqual(['t1', 't3']);
    expect(after.hits.hits.every((h) => h._index === TICKETS.name)).toBe(true);
    expect(after.hits.hits.find((h) => h._id === 't1')?._source).toEqual({ subject: 'printer fixed', priority: 2 });
    expect(sortedIdsOf(await live({ query: { match: { subject: 'laptop' } } }))).toEqual(['t3']);
    expect(await ctx.index.exists(SHADOW)).toBe(false);
    // Writes to the live name reach the swapped-in documents, version fence included.
    await ctx.index.upsert(TICKETS.name, [{ id: 't1', version: 1, source: { subject: 'older event', priority: 9 } }]);
    await ctx.index.upsert(TICKETS.name, [{ id: 't4', version: 1, source: { subject: 'after swap', priority: 1 } }]);
    expect(sortedIdsOf(await live())).toEqual(['t1', 't3', 't4']);
    expect((await live({ query: { ids: { values: ['t1'] } } })).hits.hits[0]?._source).toEqual({ subject: 'printer fixed', priority: 2 });
  });

  test('a second rebuild starts as a copy of the live index, takes new fields, and swaps again', async () => {
    const wider: IndexDefinition = { name: SHADOW, fields: [...TICKETS.fields, { name: 'team', type: 'string' }] };
    await ctx.index.createShadow(wider, TICKETS.name);
    expect(sortedIdsOf(await ctx.index.search(SHADOW, all))).toEqual(['t1', 't3', 't4']);
    // Copies keep their versions: an older event still loses.
    await ctx.index.upsert(SHADOW, [
      { id: 't3', version: 0, source: { subject: 'ancient', priority: 0 } },
      { id: 't4', version: 2, source: { subject: 'after swap', priority: 1, team: 'ops' } },
    ]);
    await ctx.index.delete(SHADOW, ['t1']);
    await ctx.index.swapShadow(SHADOW, TICKETS.name);

    expect(sortedIdsOf(await live())).toEqual(['t3', 't4']);
    expect((await live({ query: { ids: { values: ['t3'] } } })).hits.hits[0]?._source).toEqual({ subject: 'new laptop', priority: 3 });
    expect(sortedIdsOf(await live({ query: { match: { team: 'ops' } } }))).toEqual(['t4']);
  });

  test('creating a shadow again starts it empty; drop removes it, and an absent one is ignored', async () => {
    await ctx.index.createShadow({ ...TICKETS, name: SHADOW });
    await ctx.index.upsert(SHADOW, [{ id: 'x', version: 1, source: { subject: 'abandoned', priority: 1 } }]);
    await ctx.index.createShadow({ ...TICKETS, name: SHADOW });
    expect(sortedIdsOf(await ctx.index.search(SHADOW, all))).toEqual([]);
    await ctx.index.drop(SHADOW);
    await ctx.index.drop(SHADOW);
    expect(await ctx.index.exists(SHADOW)).toBe(false);
    expect(sortedIdsOf(await live())).toEqual(['t3', 't4']);
  });

  test('swapping a shadow that is not there is refused and leaves the live index alone', async () => {
    await expectRefusal(ctx.index.swapShadow('tickets__missing', TICKETS.name), 'DB_NOT_FOUND', { rule: 'index-exists' });
    expect(sortedIdsOf(await live())).toEqual(['t3', 't4']);
  });
}
