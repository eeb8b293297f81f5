import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors';
import { httpStatusOf } from '../../src/http/problem';

/** The error catalogue, its HTTP mapping and the README's error table stay in step. */
describe('error catalogue', () => {
  const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

  test.each(codes)('%s is documented in the README with its HTTP status', (code) => {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    expect(row).toBeDefined();
    expect(row).toContain(`| ${httpStatusOf(code)} |`);
  });

  test('the README documents no code the catalogue lacks', () => {
    const documented = [...readme.matchAll(/^\| `(DB_[A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...codes].sort());
  });

  test('codes are stable, prefixed and upper snake case', () => {
    for (const code of codes) expect(code).toMatch(/^DB_[A-Z]+(_[A-Z]+)*$/);
  });
});
