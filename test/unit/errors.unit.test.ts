import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors';
import { httpStatusOf } from '../../src/http/problem';

/** The error catalogue, its HTTP mapping and the error table of docs/http-api.md stay in step. */
describe('error catalogue', () => {
  const page = readFileSync(path.resolve(__dirname, '../../docs/http-api.md'), 'utf8');
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

  test.each(codes)('%s is documented in docs/http-api.md with its HTTP status', (code) => {
    const row = page.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    expect(row).toBeDefined();
    expect(row).toContain(`| ${httpStatusOf(code)} |`);
  });

  test('docs/http-api.md documents no code the catalogue lacks', () => {
    const documented = [...page.matchAll(/^\| `(DB_[A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...codes].sort());
  });

  test('codes are stable, prefixed and upper snake case', () => {
    for (const code of codes) expect(code).toMatch(/^DB_[A-Z]+(_[A-Z]+)*$/);
  });
});
