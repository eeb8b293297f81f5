import { isWellFormed, loneSurrogatePath, mayHoldLoneSurrogate } from '../../src/text/well-formed';

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
