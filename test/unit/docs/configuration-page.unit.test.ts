/**
 * docs/configuration.md is made from the configuration schema: its settings table is what
 * src/config-reference.ts renders (refresh with `npm run docs:config`), every environment variable the loader
 * maps is a row of it, and every DELTABROKER_* or LOG_* variable the code reads is on the page.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ENV_KEYS } from '../../../src/config-environment';
import { CONFIGURATION_PAGE, settingRows, withGeneratedTable } from '../../../src/config-reference';
import { ROOT } from '../../support/markdown';

const page = readFileSync(CONFIGURATION_PAGE, 'utf8');

/** Source files of the service and its scripts (tests and benchmarks have variables of their own). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.(ts|js|sh)$/.test(name) ? [file] : [];
  });
}

/** Variables the code reads: `process.env.X`, `env.X`, `env['X']`, `${X:-…}` in shell scripts. */
function variablesReadByCode(): string[] {
  const names = new Set<string>();
  for (const file of ['src', 'bin', 'streams', 'projections'].flatMap((dir) => sourceFiles(path.join(ROOT, dir)))) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/\benv(?:\.|\[')((?:DELTABROKER|LOG)_[A-Z0-9_]+)|\$\{((?:DELTABROKER|LOG)_[A-Z0-9_]+)/g)) {
      names.add((match[1] ?? match[2]) as string);
    }
  }
  return [...names].sort();
}

describe('docs/configuration.md', () => {
  test('its settings table is the one the schema makes (npm run docs:config rewrites it)', () => {
    expect(page).toBe(withGeneratedTable(page));
  });

  test('every environment variable the loader maps names a setting of the schema', () => {
    const rendered = settingRows()
      .map((row) => row.env)
      .filter((env): env is string => env !== undefined);
    expect(rendered.sort()).toEqual(Object.keys(ENV_KEYS).sort());
  });

  test('every DELTABROKER_* and LOG_* variable the code reads is documented', () => {
    const read = variablesReadByCode();
    expect(read).toEqual(expect.arrayContaining(['DELTABROKER_AUTO_INSTALL', 'LOG_LEVEL']));
    expect(read.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
