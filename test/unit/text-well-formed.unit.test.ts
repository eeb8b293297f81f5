import { isWellFormed, loneSurrogatePath, mayHoldLoneSurrogate, mayHoldNul, nulPath, storableText, withNulReplaced } from '../../src/text/well-formed';

describe('lone UTF-16 surrogates', () => {
  test('a string is well formed unless a surrogate stands alone', () => {
    expect(['', 'abc', '\ud83d\ude00', 'é'].map(isWellFormed)).toEqual([true, true, true, true]);
    expect(['\ud800', '\udc00', 'a\ud83d', '\ude00b', '\ud800\ud800\udc00'].map(isWellFormed)).toEqual([false, false, false, false, false]);
  });

  test('only JSON text with a surrogate escape can hold one', () => {
    expect(mayHoldLoneSurrogate('{"a":"\\ud800"}')).toBe(true);
    expect(mayHoldLoneSurrogate('{"a":"\\u00e9"}')).toBe(false);
  });

  test('names the first value or key that holds one, at any depth', () => {
    expect(loneSurrogatePath(JSON.parse('{"a":[1,{"b":"\\udfff"}]}'), 'payload')).toBe('payload.a[1].b');
    expect(loneSurrogatePath(JSON.parse('{"\\ud800":1}'), '')).toBe('\ud800');
    expect(loneSurrogatePath({ a: ['ok', { b: '\ud83d\ude00' }] }, 'payload')).toBeUndefined();
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const path = loneSurrogatePath(deep, 'x') as string;
    expect(path.startsWith('x[0][0]')).toBe(true);
    expect(path.endsWith('…')).toBe(true);
    expect(path.length).toBeLessThan(300);
  });
});

describe('U+0000', () => {
  test('only JSON text with the escape \\u0000 can hold one; a path names the first value or key holding it', () => {
    expect(mayHoldNul('{"a":"x\\u0000"}')).toBe(true);
    expect(mayHoldNul('{"a":"x\\u00001"}')).toBe(true);
    expect(mayHoldNul('{"a":"\\u0001"}')).toBe(false);
    expect(nulPath(JSON.parse('{"a":[1,{"b":"x\\u0000"}]}'), 'payload')).toBe('payload.a[1].b');
    expect(nulPath(JSON.parse('{"k\\u0000":1}'), 'payload')).toBe('payload.k\u0000');
    expect(nulPath(JSON.parse('{"a":"the text \\\\u0000"}'), 'payload')).toBeUndefined();
    expect([storableText('a\u0000'), storableText('a\\u0000')]).toEqual([false, true]);
  });

  test('text the service writes itself has it replaced by U+FFFD, keys too; the text "\\u0000" stays as it is', () => {
    const problem = { message: 'no entity a\u0000b', details: { field: 'payload.k\u0000', quoted: 'c:\\u0000\\\u0000' } };
    expect(withNulReplaced(problem)).toEqual({ message: 'no entity a\ufffdb', details: { field: 'payload.k\ufffd', quoted: 'c:\\u0000\\\ufffd' } });
    expect(withNulReplaced({ 'k\u0000': 1 })).toEqual({ 'k\ufffd': 1 });
    const clean = { message: 'fine' };
    expect(withNulReplaced(clean)).toBe(clean);
  });
});
