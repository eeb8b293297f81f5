import { totalFromPage } from '../../../src/store/rql';

/** When a page tells its own total, and when only a count statement can. */
describe('totalFromPage', () => {
  test('a short page ends the result: the total is its offset plus its rows', () => {
    expect(totalFromPage({ limit: 100, offset: 0 }, 1)).toBe(1);
    expect(totalFromPage({ limit: 100, offset: 0 }, 0)).toBe(0);
    expect(totalFromPage({ limit: 10, offset: 20 }, 3)).toBe(23);
  });

  test('a full page says nothing of the rows after it', () => {
    expect(totalFromPage({ limit: 10, offset: 0 }, 10)).toBeUndefined();
    expect(totalFromPage({ limit: 10, offset: 30 }, 10)).toBeUndefined();
  });

  test('an empty page past the first says nothing of the rows before it', () => {
    expect(totalFromPage({ limit: 10, offset: 30 }, 0)).toBeUndefined();
  });

  test('limit(0) never tells a total', () => {
    expect(totalFromPage({ limit: 0, offset: 0 }, 0)).toBeUndefined();
  });
});
