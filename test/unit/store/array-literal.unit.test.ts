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
