/** Contract cases: a data subject's erasure (`maskFields`), as the erasure consumer calls it, delivered once or again. */
import type { IndexDefinition } from '../../../src/search/search-port';
import type { ContractContext } from './contract-context';

const PEOPLE: IndexDefinition = {
  name: 'erasure_people',
  fields: [
    { name: 'subject', type: 'string' },
    { name: 'name', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'age', type: 'integer' },
  ],
};
/** A subject id as the service makes them: capitals and dashes, which an analysed `term` splits and lower-cases. */
const SUBJECT = 'Subj-9F2C-41D8-A7E0';
const MARKER = '[erased]';

export function erasureCases(ctx: ContractContext): void {
  const sourceOf = async (id: string) => (await ctx.index.search(PEOPLE.name, { query: { ids: { values: [id] } } })).hits.hits[0]?._source;
  const erase = () => ctx.index.maskFields(PEOPLE.name, { field: 'subject', value: SUBJECT }, ['name', 'email'], MARKER);

  beforeAll(async () => {
    await ctx.index.ensureIndex(PEOPLE);
    await ctx.index.upsert(PEOPLE.name, [
      { id: 'e1', version: 3, source: { subject: SUBJECT, name: 'Ada Lovelace', email: 'ada@example.org', age: 36 } },
      { id: 'e2', version: 1, source: { subject: SUBJECT, name: 'Ada L.', email: null, age: 36 } },
      // Same words once analysed, another subject all the same.
      { id: 'e3', version: 1, source: { subject: SUBJECT.toLowerCase(), name: 'Grace Hopper', email: 'grace@example.org', age: 85 } },
      { id: 'e4', version: 1, source: { subject: 'Other', name: 'Alan Turing', email: 'alan@example.org', age: 41 } },
    ]);
  });

  test("the subject's personal string fields are masked, matching the whole id; other subjects and fields are kept", async () => {
    expect(await erase()).toBe(2);
    expect(await sourceOf('e1')).toEqual({ subject: SUBJECT, name: MARKER, email: MARKER, age: 36 });
    expect(await sourceOf('e2')).toEqual({ subject: SUBJECT, name: MARKER, email: null, age: 36 });
    expect(await sourceOf('e3')).toEqual({ subject: SUBJECT.toLowerCase(), name: 'Grace Hopper', email: 'grace@example.org', age: 85 });
    expect((await sourceOf('e4'))?.name).toBe('Alan Turing');
    const found = await ctx.index.search(PEOPLE.name, { query: { match: { name: 'ada' } } });
    expect(found.hits.hits).toEqual([]);
  });

  test('a redelivered erasure changes and counts nothing, and the record’s next event still applies', async () => {
    expect(await erase()).toBe(0);
    expect(await erase()).toBe(0);
    await ctx.index.upsert(PEOPLE.name, [{ id: 'e1', version: 4, source: { subject: SUBJECT, name: MARKER, email: MARKER, age: 37 } }]);
    expect(await sourceOf('e1')).toEqual({ subject: SUBJECT, name: MARKER, email: MARKER, age: 37 });
    // An event older than the masked document is still refused.
    await ctx.index.upsert(PEOPLE.name, [{ id: 'e1', version: 2, source: { subject: SUBJECT, name: 'Ada Lovelace', email: 'ada@example.org', age: 35 } }]);
    expect((await sourceOf('e1'))?.name).toBe(MARKER);
  });
}
