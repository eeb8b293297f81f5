/**
 * The SQL the Postgres adapter compiles: request values only ever travel as bind parameters, field names
 * only as validated literals from the definition, and one statement answers a whole request.
 */
import { FieldResolver } from '../../../src/search/dsl/fields';
import { parseSearchBody } from '../../../src/search/dsl/parse-request';
import { compileSearch } from '../../../src/search/postgres/compile-search';
import { allWordsExpression } from '../../../src/search/postgres/field-sql';
import type { IndexDefinition } from '../../../src/search/search-port';

const INDEX: IndexDefinition = {
  name: 'things',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'count', type: 'integer' },
    { name: 'at', type: 'timestamp' },
  ],
};
const compile = (body: unknown) => compileSearch('"search"."things"', parseSearchBody(body, new FieldResolver(INDEX)), allWordsExpression(INDEX.fields));

const HOSTILE = ["'); drop table things; --", "x' or '1'='1", '\\', '"quoted"', '/* c */', 'Robert`);'];

/** Every string a parameter carries, looking inside JSON parameters (jsonb arrays and objects). */
function carried(values: unknown[]): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') Object.entries(v).forEach(([k, x]) => (out.push(k), visit(x)));
  };
  for (const v of values) {
    visit(v);
    if (typeof v === 'string' && /^[[{]/.test(v)) visit(JSON.parse(v));
  }
  return out;
}

describe('compileSearch', () => {
  test('hostile values appear only among the parameters, never in the SQL text', () => {
    for (const value of HOSTILE) {
      const bodies = [
        { query: { match: { title: value } } },
        { query: { match_phrase: { title: value } } },
        { query: { multi_match: { query: value } } },
        { query: { term: { 'title.keyword': value } } },
        { query: { terms: { title: [value, 'x'] } } },
        { query: { prefix: { title: value } } },
        { query: { wildcard: { 'title.keyword': value } } },
        { query: { range: { title: { gte: value } } } },
        { query: { ids: { values: [value] } } },
        { query: { bool: { must_not: { term: { title: value } } } } },
        { size: 0, aggs: { [value]: { terms: { field: 'title' } } } },
      ];
      for (const body of bodies) {
        const { text, values } = compile(body);
        expect(text).not.toContain(value);
        const strings = carried(values);
        // LIKE escaping and wildcard translation rewrite `\ % _ * ?`; the rest of each word travels as is.
        const plain = (v: string) => v.replace(/[\\%_*?]/g, '');
        for (const word of value.split(/\s+/)) expect(strings.some((v) => plain(v).includes(plain(word)))).toBe(true);
      }
    }
  });

  test('one statement: placeholders are numbered in order and each has a value', () => {
    const { text, values } = compile({
      query: { bool: { must: [{ match: { title: 'a b' } }], filter: [{ range: { count: { gt: 1, lte: 9 } } }] } },
      sort: [{ at: 'desc' }],
      from: 5,
      size: 20,
      aggs: { t: { terms: { field: 'title', size: 3 } } },
    });
    const used = [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    expect(Math.max(...used)).toBe(values.length);
    expect(new Set(used).size).toBe(values.length);
    expect(text.split(';')).toHaveLength(1);
    expect(values).toEqual(expect.arrayContaining(['a', 'b', 1, 9, 20, 5, 3, 't']));
  });

  test('field names reach SQL only as literals of validated definition fields', () => {
    const { text } = compile({ query: { exists: { field: 'count' } }, sort: ['title'] });
    expect(text).toContain(`source -> 'count'`);
    expect(text).toContain(`(source ->> 'title') collate "C"`);
  });

  test('sort keys end with the id, so pages are stable', () => {
    expect(compile({ sort: [{ count: 'desc' }] }).text).toContain(`end) desc nulls last, id asc`);
    expect(compile({}).text).toContain('order by score desc, id asc');
  });
});
