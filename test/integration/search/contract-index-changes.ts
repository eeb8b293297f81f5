/**
 * Contract cases: what `ensureIndex` promises when a definition changes under stored documents, instances that
 * start together, read-your-writes over several shards, and a copy longer than the client's timeout.
 */
import type { IndexDefinition, SearchDocument, SearchIndex } from '../../../src/search/search-port';
import { sortedIdsOf, type ContractContext } from './contract-context';

/**
 * Documents of the long copy: enough that copying them takes well over the impatient client's 500 ms per request on
 * a quiet machine (8,000 once took 475 ms), while each of its requests stays far below it.
 */
const LONG_COPY_DOCUMENTS = 20_000;

const count = async (index: SearchIndex, name: string): Promise<number | undefined> =>
  (await index.search(name, { size: 0, track_total_hits: true })).hits.total?.value;

const many = (n: number, prefix: string): SearchDocument[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, version: 1, source: { label: `${prefix} number ${i}`, n: i } }));

const COUNTED: IndexDefinition = {
  name: 'counted',
  fields: [
    { name: 'label', type: 'string' },
    { name: 'n', type: 'integer' },
  ],
};

export function indexChangeCases(ctx: ContractContext): void {
  test('a field whose type changes keeps its documents, searchable with the new type', async () => {
    const ranked: IndexDefinition = { name: 'retyped', fields: [{ name: 'rank', type: 'integer' }] };
    await ctx.index.ensureIndex(ranked);
    await ctx.index.upsert(ranked.name, [
      { id: 'r1', version: 1, source: { rank: 3 } },
      { id: 'r2', version: 1, source: { rank: 5 } },
    ]);
    await ctx.index.ensureIndex({ ...ranked, fields: [{ name: 'rank', type: 'number' }] });
    await ctx.index.upsert(ranked.name, [{ id: 'r3', version: 1, source: { rank: 2.5 } }]);
    const response = await ctx.index.search(ranked.name, { query: { range: { rank: { gte: 2.5, lte: 3 } } }, sort: [{ rank: 'asc' }] });
    expect(response.hits.hits.map((h) => h._id)).toEqual(['r3', 'r1']);
    expect(sortedIdsOf(await ctx.index.search(ranked.name, {}))).toEqual(['r1', 'r2', 'r3']);
  });

  test('a field added after documents exist finds those documents too', async () => {
    const posts: IndexDefinition = { name: 'posts', fields: [{ name: 'title', type: 'string' }] };
    await ctx.index.ensureIndex(posts);
    await ctx.index.upsert(posts.name, [{ id: 'old', version: 7, source: { title: 'early post', body: 'written before body was a field' } }]);
    await ctx.index.ensureIndex({ ...posts, fields: [...posts.fields, { name: 'body', type: 'string' }] });
    expect(sortedIdsOf(await ctx.index.search(posts.name, { query: { match: { body: 'written' } } }))).toEqual(['old']);
    // Versions survive the migration: an older event is still refused.
    await ctx.index.upsert(posts.name, [{ id: 'old', version: 6, source: { title: 'older', body: 'older' } }]);
    expect((await ctx.index.search(posts.name, { query: { ids: { values: ['old'] } } })).hits.hits[0]?._source?.title).toBe('early post');
  });

  test('instances creating the same index at once all succeed, and share it', async () => {
    const [first, second, third] = await Promise.all([ctx.openInstance(), ctx.openInstance(), ctx.openInstance()]);
    const others = [first, second, third];
    try {
      const shared: IndexDefinition = { name: 'started_together', fields: [{ name: 'label', type: 'string' }] };
      await Promise.all(others.map((other) => other.ensureIndex(shared)));
      await first.upsert(shared.name, [{ id: 's1', version: 1, source: { label: 'one' } }]);
      expect(sortedIdsOf(await third.search(shared.name, {}))).toEqual(['s1']);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });

  test('an upsert over several batches and shards is wholly visible when it resolves', async () => {
    const sharded = await ctx.openInstance({ shards: 4 });
    try {
      await sharded.ensureIndex(COUNTED);
      // 1,001 documents: the last batch holds one, on one shard.
      await sharded.upsert(COUNTED.name, many(1001, 'visible'));
      expect(await count(sharded, COUNTED.name)).toBe(1001);
    } finally {
      await sharded.close();
    }
  });

  test('a shadow copy longer than the client’s request timeout completes', async () => {
    await ctx.index.ensureIndex({ ...COUNTED, name: 'long_copy' });
    await ctx.index.upsert('long_copy', many(LONG_COPY_DOCUMENTS, 'copied'));
    const impatient = await ctx.openInstance({ requestTimeoutMs: 500 });
    try {
      const started = Date.now();
      await impatient.createShadow({ ...COUNTED, name: 'long_copy__rebuild' }, 'long_copy');
      expect(await count(impatient, 'long_copy__rebuild')).toBe(LONG_COPY_DOCUMENTS);
      // On an engine the copy as a whole took longer than any one request was allowed (PostgreSQL copies in one statement).
      if (!ctx.features.subsetOnly) expect(Date.now() - started).toBeGreaterThan(500);
      await impatient.drop('long_copy__rebuild');
    } finally {
      await impatient.close();
    }
  }, 300_000);

  test('a shadow built again while an earlier build still copies into it ends as the new build alone', async () => {
    await ctx.index.ensureIndex({ ...COUNTED, name: 'long_copy' });
    await ctx.index.upsert('long_copy', many(8000, 'copied'));
    const shadow = { ...COUNTED, name: 'long_copy__retried' };
    const earlier = ctx.openInstance();
    const first = earlier.then((instance) => instance.createShadow(shadow, 'long_copy'));
    while (!(await ctx.index.exists(shadow.name))) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await ctx.index.createShadow(shadow);
    // The earlier build may finish or fail; either way none of its copy reaches the new shadow.
    await first.catch(() => undefined);
    await (await earlier).close();
    await ctx.index.upsert(shadow.name, [{ id: 'fresh', version: 1, source: { label: 'new build', n: 0 } }]);
    expect(sortedIdsOf(await ctx.index.search(shadow.name, { size: 10 }))).toEqual(['fresh']);
    await ctx.index.drop(shadow.name);
  }, 300_000);
}
