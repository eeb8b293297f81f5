/** Validation of index definitions and documents, shared by both adapters. */
import { documentRefusal, isDocumentRefusal, latestPerId, validateDocuments, validateIds, validateIndexDefinition } from '../../../src/search/index-definition';
import type { IndexDefinition } from '../../../src/search/search-port';

const INDEX: IndexDefinition = {
  name: 'accounts',
  fields: [
    { name: 'owner', type: 'string' },
    { name: 'opened', type: 'timestamp' },
    { name: 'limit', type: 'integer' },
    { name: 'extra', type: 'object' },
  ],
};
const check = (source: Record<string, unknown>) => () => validateDocuments(INDEX, [{ id: 'a', version: 1, source }]);

describe('index definitions', () => {
  test('names: lower-case index names, field names without a leading underscore, no duplicates', () => {
    expect(validateIndexDefinition(INDEX)).toEqual(INDEX);
    expect(validateIndexDefinition({ name: 'a'.repeat(63), fields: [{ name: 'B'.repeat(63), type: 'string' }] }).name).toHaveLength(63);
    expect(() => validateIndexDefinition({ name: 'a'.repeat(64), fields: [] })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'index.name' }) }),
    );
    expect(() => validateIndexDefinition({ name: 'x', fields: [{ name: 'a'.repeat(64), type: 'string' }] })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'index.fields[0].name' }) }),
    );
    expect(() =>
      validateIndexDefinition({
        name: 'x',
        fields: [
          { name: 'a', type: 'string' },
          { name: 'a', type: 'integer' },
        ],
      }),
    ).toThrow(expect.objectContaining({ details: expect.objectContaining({ rule: 'unique' }) }));
    expect(() => validateIndexDefinition({ name: 'x', fields: [{ name: "a'--", type: 'string' }] })).toThrow(
      expect.objectContaining({ code: 'DB_VALIDATION' }),
    );
  });
});

describe('documents', () => {
  test('typed fields must hold their type; absent and null are fine', () => {
    expect(check({ owner: 'ada', opened: '2024-02-29T12:00:00+01:00', limit: 5, extra: { a: [1] } })).not.toThrow();
    expect(check({ owner: null, opened: '2024-02-29' })).not.toThrow();
    expect(check({ limit: 1.5 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'docs[0].source.limit', rule: 'type' }) }));
    expect(check({ opened: 'yesterday' })).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'docs[0].source.opened' }) }));
    expect(check({ opened: '2024-13-45' })).toThrow(expect.objectContaining({ code: 'DB_VALIDATION' }));
    expect(check({ opened: '2023-02-29' })).toThrow(expect.objectContaining({ code: 'DB_VALIDATION' }));
    // Real calendar days, with the Gregorian leap rule; a time is checked too.
    for (const ok of ['2000-02-29', '2024-04-30', '2024-12-31T23:59:59.5Z', '2024-06-01 12:00']) expect(check({ opened: ok })).not.toThrow();
    for (const bad of ['1900-02-29', '2024-04-31', '2024-00-10', '2024-06-00', '2024-06-01T25:00:00Z', '2024-06-01T12:60Z']) {
      expect(check({ opened: bad })).toThrow(expect.objectContaining({ code: 'DB_VALIDATION' }));
    }
    expect(check({ owner: ['a'] })).toThrow(expect.objectContaining({ details: expect.objectContaining({ rule: 'array-not-supported' }) }));
  });

  test('U+0000 is refused anywhere, but the text "\\u0000" is not', () => {
    expect(check({ extra: { deep: ['x\u0000'] } })).toThrow(expect.objectContaining({ details: expect.objectContaining({ rule: 'nul-character' }) }));
    expect(check({ owner: 'C:\\u0000' })).not.toThrow();
  });

  test('ids and versions', () => {
    expect(() => validateDocuments(INDEX, [{ id: 'x'.repeat(513), version: 1, source: {} }])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'docs[0].id' }) }),
    );
    expect(() => validateDocuments(INDEX, [{ id: 'x', version: -1, source: {} }])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'docs[0].version' }) }),
    );
  });

  test('a lone document’s refusal names its own field; a refusal of a document is told apart from other failures', () => {
    expect(documentRefusal(INDEX, { id: 'a', version: 1, source: { owner: 'o', limit: 2 } })).toBeUndefined();
    expect(documentRefusal(INDEX, { id: 'a', version: 1, source: { limit: 'two' } })?.details).toMatchObject({ field: 'source.limit', rule: 'type' });
    const refusalOf = (run: () => void): unknown => {
      try {
        run();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(isDocumentRefusal(refusalOf(check({ limit: 'two' })))).toBe(true);
    expect(isDocumentRefusal(refusalOf(() => validateIds([''])))).toBe(false);
    expect(isDocumentRefusal(refusalOf(() => validateIndexDefinition({ name: 'A', fields: [] })))).toBe(false);
    expect(isDocumentRefusal(new Error('docs[0].source'))).toBe(false);
  });

  test('latestPerId keeps the highest version, the last one on ties', () => {
    const docs = [
      { id: 'a', version: 2, source: { n: 1 } },
      { id: 'a', version: 1, source: { n: 2 } },
      { id: 'b', version: 1, source: { n: 3 } },
      { id: 'b', version: 1, source: { n: 4 } },
    ];
    expect(latestPerId(docs).map((d) => d.source.n)).toEqual([1, 4]);
  });
});
