import { arrayLiteral } from '../../../src/store/array-literal';

test('strings are quoted (escaping quotes and backslashes), numbers and booleans bare, null and undefined NULL', () => {
  expect(arrayLiteral(['a', 'b"c', 'd\\e', null, undefined, 1, 2.5, true, 10n])).toBe('{"a","b\\"c","d\\\\e",NULL,NULL,1,2.5,true,10}');
});

test('text that looks like syntax stays text: empty, NULL, commas, braces, spaces', () => {
  expect(arrayLiteral(['', 'NULL', 'x,y', '{z}', ' pad '])).toBe('{"","NULL","x,y","{z}"," pad "}');
});

test('an empty array', () => {
  expect(arrayLiteral([])).toBe('{}');
});

test('plain strings alone, and strings among other values, give the same literal element by element', () => {
  expect(arrayLiteral(['a', 'b c', ''])).toBe('{"a","b c",""}');
  expect(arrayLiteral(['a', 'b c', 7])).toBe('{"a","b c",7}');
  expect(arrayLiteral(['a', 'q"'])).toBe('{"a","q\\""}');
});

test('numbers, booleans and bigints alone are written bare', () => {
  expect(arrayLiteral([1, -2.5, 1e21, 3n])).toBe('{1,-2.5,1e+21,3}');
  expect(arrayLiteral([true, false])).toBe('{true,false}');
});
