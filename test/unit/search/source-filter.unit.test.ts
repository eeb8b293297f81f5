/** `_source` filtering and readable fields, as both adapters apply them to each hit. */
import { parseSourceFilter, sourceProjector } from '../../../src/search/source-filter';

const SOURCE = { name: 'n', name_alt: 'a', price: 1, secret: 's', nested: { x: 1 } };
const project = (filter: unknown, readable?: Set<string>) => sourceProjector(parseSourceFilter(filter), readable)(SOURCE);

describe('source filtering', () => {
  test('true, absent, false', () => {
    expect(project(undefined)).toEqual(SOURCE);
    expect(project(true)).toEqual(SOURCE);
    expect(project(false)).toBeUndefined();
  });

  test('patterns, lists, includes and excludes with wildcards', () => {
    expect(project('price')).toEqual({ price: 1 });
    expect(project(['name*'])).toEqual({ name: 'n', name_alt: 'a' });
    expect(project({ excludes: ['name*', 'nested'] })).toEqual({ price: 1, secret: 's' });
    expect(project({ includes: ['name*'], excludes: ['*_alt'] })).toEqual({ name: 'n' });
    expect(project(['na.e'])).toEqual({});
  });

  test('readable fields win over any pattern', () => {
    const readable = new Set(['name', 'price']);
    expect(project(undefined, readable)).toEqual({ name: 'n', price: 1 });
    expect(project(['secret', '*'], readable)).toEqual({ name: 'n', price: 1 });
    expect(project(false, readable)).toBeUndefined();
  });

  test('an include naming a hidden field is refused with 403 naming it; patterns and excludes pass', () => {
    const hidden = (field: string) => field === 'secret';
    const refusal = (filter: unknown) => {
      try {
        parseSourceFilter(filter, 'payload._source', hidden);
      } catch (error) {
        return error;
      }
      throw new Error('expected a refusal');
    };
    expect(refusal('secret')).toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'payload._source', rule: 'field-not-readable', name: 'secret' } });
    expect(refusal(['name', 'secret'])).toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'payload._source[1]' } });
    expect(refusal({ includes: ['secret'] })).toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'payload._source.includes[0]' } });
    expect(parseSourceFilter(['s*', 'name'], 'payload._source', hidden)).toEqual({ includes: ['s*', 'name'], excludes: [] });
    expect(parseSourceFilter({ excludes: ['secret'] }, 'payload._source', hidden)).toEqual({ includes: [], excludes: ['secret'] });
    expect(sourceProjector(parseSourceFilter(['s*', 'name'], 'payload._source', hidden), new Set(['name', 'price']))(SOURCE)).toEqual({ name: 'n' });
  });

  test('malformed filters are refused naming the path', () => {
    expect(() => parseSourceFilter(3)).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'payload._source' }) }));
    expect(() => parseSourceFilter({ includes: [1] })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'payload._source.includes' }) }),
    );
  });
});
