/** Contract cases: upsert versions, deletes, validation of documents and definition changes. */
import type { IndexDefinition } from '../../../src/search/search-port';
import { expectRefusal, sortedIdsOf, type ContractContext } from './contract-context';

const NOTES: IndexDefinition = {
  name: 'notes',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'rank', type: 'integer' },
  ],
};

export function writeCases(ctx: ContractContext): void {
  const notes = (body: unknown) => ctx.index.search(NOTES.name, body);

  test('ensureIndex is idempotent; upsert replaces by id unless the stored version is newer', async () => {
    await ctx.index.ensureIndex(NOTES);
    await ctx.index.ensureIndex(NOTES);
    await ctx.index.upsert(NOTES.name, [
      { id: 'n1', version: 1, source: { title: 'first draft', rank: 1 } },
      { id: 'n2', version: 1, source: { title: 'second', rank: 2 } },
    ]);
    await ctx.index.upsert(NOTES.name, [{ id: 'n1', version: 3, source: { title: 'final text', rank: 1 } }]);
    await ctx.index.upsert(NOTES.name, [{ id: 'n1', version: 2, source: { title: 'stale draft', rank: 1 } }]);
    await ctx.index.upsert(NOTES.name, [{ id: 'n1', version: 3, source: { title: 'final text', rank: 1 } }]);
    const n1 = await notes({ query: { ids: { values: ['n1'] } } });
    expect(n1.hits.hits[0]?._source).toEqual({ title: 'final text', rank: 1 });
    expect(sortedIdsOf(await notes({ query: { match: { title: 'draft' } } }))).toEqual([]);
  });

  test('the highest version wins within one batch', async () => {
    await ctx.index.ensureIndex(NOTES);
    await ctx.index.upsert(NOTES.name, [
      { id: 'n3', version: 5, source: { title: 'newest', rank: 3 } },
      { id: 'n3', version: 4, source: { title: 'older', rank: 3 } },
    ]);
    expect((await notes({ query: { ids: { values: ['n3'] } } })).hits.hits[0]?._source).toEqual({ title: 'newest', rank: 3 });
  });

  test('delete removes documents; unknown ids are ignored', async () => {
    await ctx.index.ensureIndex(NOTES);
    await ctx.index.upsert(NOTES.name, [{ id: 'gone', version: 1, source: { title: 'to delete', rank: 9 } }]);
    await ctx.index.delete(NOTES.name, ['gone', 'never-existed']);
    expect(sortedIdsOf(await notes({ query: { ids: { values: ['gone'] } } }))).toEqual([]);
    await ctx.index.delete(NOTES.name, []);
  });

  test('documents whose fields break their types are refused before anything is written', async () => {
    await ctx.index.ensureIndex(NOTES);
    await expectRefusal(ctx.index.upsert(NOTES.name, [{ id: 'bad', version: 1, source: { title: 'ok', rank: 'high' } }]), 'DB_VALIDATION', {
      field: 'docs[0].source.rank',
    });
    await expectRefusal(ctx.index.upsert(NOTES.name, [{ id: '', version: 1, source: {} }]), 'DB_VALIDATION', { field: 'docs[0].id' });
    await expectRefusal(ctx.index.upsert(NOTES.name, [{ id: 'x', version: 1, source: { title: ['a', 'b'] } }]), 'DB_VALIDATION', {
      rule: 'array-not-supported',
    });
    await expectRefusal(ctx.index.upsert(NOTES.name, [{ id: 'x', version: 1, source: { extra: { note: 'a\u0000b' } } }]), 'DB_VALIDATION', {
      rule: 'nul-character',
    });
    expect(sortedIdsOf(await notes({ query: { ids: { values: ['bad', 'x'] } } }))).toEqual([]);
  });

  test('invalid definitions are refused', async () => {
    await expectRefusal(ctx.index.ensureIndex({ name: 'Bad-Name', fields: [] }), 'DB_VALIDATION', { field: 'index.name' });
    await expectRefusal(ctx.index.ensureIndex({ name: 'ok', fields: [{ name: '_id', type: 'string' }] }), 'DB_VALIDATION', { field: 'index.fields[0].name' });
    await expectRefusal(ctx.index.ensureIndex({ name: 'ok', fields: [{ name: 'a', type: 'text' as never }] }), 'DB_VALIDATION', {
      field: 'index.fields[0].type',
      rule: 'enum',
    });
  });

  test('a field added to the definition becomes searchable', async () => {
    await ctx.index.ensureIndex(NOTES);
    await ctx.index.ensureIndex({ ...NOTES, fields: [...NOTES.fields, { name: 'body', type: 'string' }] });
    await ctx.index.upsert(NOTES.name, [{ id: 'n4', version: 1, source: { title: 'with body', rank: 4, body: 'searchable paragraph' } }]);
    expect(sortedIdsOf(await notes({ query: { match: { body: 'paragraph' } } }))).toEqual(['n4']);
    expect(sortedIdsOf(await notes({ query: { multi_match: { query: 'paragraph' } } }))).toEqual(['n4']);
  });

  test('many documents are written in batches and all become searchable', async () => {
    await ctx.index.ensureIndex(NOTES);
    const docs = Array.from({ length: 2500 }, (_, i) => ({ id: `bulk-${i}`, version: 1, source: { title: `bulk note ${i}`, rank: i } }));
    await ctx.index.upsert(NOTES.name, docs);
    const response = await notes({ query: { prefix: { 'title.keyword': 'bulk' } }, track_total_hits: true, size: 0 });
    expect(response.hits.total).toEqual({ value: 2500, relation: 'eq' });
  });
}
