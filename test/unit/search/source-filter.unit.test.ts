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

  test('malformed filters are refused naming the path', () => {
    expect(() => parseSourceFilter(3)).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'payload._source' }) }));
    expect(() => parseSourceFilter({ includes: [1] })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'payload._source.includes' }) }));
  });
});
