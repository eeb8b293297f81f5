/**
 * Architecture rule: an engine's client library is imported only by its adapter; the rest of the service talks
 * to ports. (The project's stand-in for an eslint no-restricted-imports rule.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SCANNED = ['src', 'streams', 'projections'];

/** Engine package → the folders or files allowed to import it. */
const ADAPTERS: Record<string, string[]> = {
  kafkajs: ['src/log/kafka/'],
  '@kafkajs/confluent-schema-registry': ['src/log/kafka/', 'src/log/codec/'],
  '@elastic/elasticsearch': ['src/search/elasticsearch/'],
  pkcs11js: ['src/crypto/hsm/'],
  pg: ['src/store/pg-sql-client.ts', 'src/store/embedded-postgres/'],
};

const importOf = (pkg: string): RegExp =>
  new RegExp(`(?:from\\s+|require\\(\\s*|import\\(\\s*)['"]${pkg.replace(/[/.]/g, '\\$&')}(?:/[^'"]*)?['"]`);

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|js|mts|cts)$/.test(name)) yield full;
  }
}

const files = SCANNED.flatMap((top) => [...sourceFiles(path.join(ROOT, top))]).map((file) => ({
  relative: path.relative(ROOT, file).split(path.sep).join('/'),
  text: readFileSync(file, 'utf8'),
}));

test.each(Object.entries(ADAPTERS))('%s is imported only by its adapter', (pkg, allowed) => {
  const pattern = importOf(pkg);
  const offenders = files.filter((f) => pattern.test(f.text) && !allowed.some((a) => f.relative.startsWith(a))).map((f) => f.relative);
  expect(offenders).toEqual([]);
  // The rule must see something to be worth anything: each engine is used by its adapter.
  expect(files.some((f) => pattern.test(f.text))).toBe(true);
});

test('the write-log and search ports import no adapter', () => {
  for (const file of ['src/log/port.ts', 'src/log/index.ts', 'src/log/schemas.ts', 'src/search/search-port.ts', 'src/search/index.ts']) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/from\s+['"]\.\/(kafka|elasticsearch)/);
  }
});
