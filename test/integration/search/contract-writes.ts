/** Contract cases: upsert versions, deletes, validation of documents and definition changes. */
import { withZone } from '../../../src/search/index-definition';
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

  test('timestamps in every form the validator accepts are stored, found by range, and keep their instant', async () => {
    const dated: IndexDefinition = { name: 'dated', fields: [{ name: 'at', type: 'timestamp' }] };
    const forms = [
      '2024-01-01',
      '2024-01-01T10:00',
      '2024-01-01 10:00',
      '2024-01-01T10:00:30',
      '2024-01-01 10:00:30.5',
      '2024-01-01T10:00:30.123456789',
      '2024-01-01T10:00Z',
      '2024-01-01T10:00z',
      '2024-01-01 10:00:30.25z',
      '2024-01-01T10:00+0100',
      '2024-01-01T10:00-01:30',
    ];
    await ctx.index.ensureIndex(dated);
    await ctx.index.upsert(
      dated.name,
      forms.map((at, i) => ({ id: `d${i}`, version: 1, source: { at } })),
    );
    const found = await ctx.index.search(dated.name, { query: { range: { at: { gte: '2024-01-01', lt: '2024-01-02' } } }, size: 100 });
    expect(sortedIdsOf(found)).toEqual(forms.map((_, i) => `d${i}`).sort());
    for (const hit of found.hits.hits) {
      const written = forms[Number(hit._id.slice(1))] as string;
      expect(Date.parse(withZone(String(hit._source?.at)))).toBe(Date.parse(withZone(written)));
    }
  });

  test('a sensitive field is stored and returned, never analysed: only its whole value matches', async () => {
    const accounts: IndexDefinition = {
      name: 'accounts',
      fields: [
        { name: 'owner', type: 'string' },
        { name: 'iban', type: 'string', sensitive: true },
      ],
    };
    const sealed = 'enc:v1:Qm9n-dXM gY2lwaGVy';
    await ctx.index.ensureIndex(accounts);
    await ctx.index.upsert(accounts.name, [{ id: 'a1', version: 1, source: { owner: 'Ada Lovelace', iban: sealed } }]);
    const ids = async (body: unknown) => sortedIdsOf(await ctx.index.search(accounts.name, body));
    expect((await ctx.index.search(accounts.name, {})).hits.hits[0]?._source).toEqual({ owner: 'Ada Lovelace', iban: sealed });
    for (const word of ['gY2lwaGVy', 'enc', 'qm9n']) {
      expect(await ids({ query: { match: { iban: word } } })).toEqual([]);
      expect(await ids({ query: { multi_match: { query: word } } })).toEqual([]);
    }
    expect(await ids({ query: { match: { iban: sealed } } })).toEqual(['a1']);
    expect(await ids({ query: { term: { iban: sealed } } })).toEqual(['a1']);
    expect(await ids({ query: { term: { 'iban.keyword': sealed } } })).toEqual(['a1']);
    expect(await ids({ query: { multi_match: { query: 'lovelace' } } })).toEqual(['a1']);
    // A field that becomes sensitive loses its words.
    await ctx.index.ensureIndex({ ...accounts, fields: [{ name: 'owner', type: 'string', sensitive: true }, accounts.fields[1]!] });
    expect(await ids({ query: { match: { owner: 'lovelace' } } })).toEqual([]);
    expect(await ids({ query: { term: { owner: 'Ada Lovelace' } } })).toEqual(['a1']);
  });

  test('many documents are written in batches and all become searchable', async () => {
    await ctx.index.ensureIndex(NOTES);
    const docs = Array.from({ length: 2500 }, (_, i) => ({ id: `bulk-${i}`, version: 1, source: { title: `bulk note ${i}`, rank: i } }));
    await ctx.index.upsert(NOTES.name, docs);
    const response = await notes({ query: { prefix: { 'title.keyword': 'bulk' } }, track_total_hits: true, size: 0 });
    expect(response.hits.total).toEqual({ value: 2500, relation: 'eq' });
  });
}
