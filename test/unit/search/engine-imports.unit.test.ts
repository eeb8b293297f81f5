/**
 * Architecture rule: only the Elasticsearch adapter (src/search/elasticsearch/) imports the Elasticsearch
 * client; the search port, the DSL parser and the Postgres adapter import no database driver at all.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const ELASTIC_IMPORT = /(?:from\s+|require\(\s*|import\(\s*)['"]@elastic\/elasticsearch(?:\/[^'"]*)?['"]/;
const DRIVER_IMPORT = /(?:from\s+|require\(\s*|import\(\s*)['"](pg|@electric-sql\/pglite|@elastic\/elasticsearch)(?:\/[^'"]*)?['"]/;

function* sourceFiles(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|js|mts|cts)$/.test(name)) yield full;
  }
}

test('@elastic/elasticsearch is imported only under src/search/elasticsearch/', () => {
  const adapter = path.join('src', 'search', 'elasticsearch') + path.sep;
  const offenders = ['src', 'streams', 'projections']
    .flatMap((top) => [...sourceFiles(path.join(ROOT, top))])
    .map((file) => path.relative(ROOT, file))
    .filter((file) => !file.startsWith(adapter) && ELASTIC_IMPORT.test(readFileSync(path.join(ROOT, file), 'utf8')));
  expect(offenders).toEqual([]);
});

test('the search port, DSL and Postgres adapter import no driver', () => {
  const adapter = path.join('src', 'search', 'elasticsearch') + path.sep;
  const files = [...sourceFiles(path.join(ROOT, 'src', 'search'))].map((f) => path.relative(ROOT, f)).filter((f) => !f.startsWith(adapter));
  expect(files.length).toBeGreaterThan(5);
  for (const file of files) expect([file, DRIVER_IMPORT.test(readFileSync(path.join(ROOT, file), 'utf8'))]).toEqual([file, false]);
});
