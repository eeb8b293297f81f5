/**
 * Architecture rule: only the write log's Kafka adapter (src/log/kafka/) imports kafkajs and the schema
 * registry client; the rest of the service talks to the WriteLog port.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCANNED = ['src', 'streams', 'projections'];
const ADAPTER = path.join('src', 'log', 'kafka') + path.sep;
const ENGINE_IMPORT = /(?:from\s+|require\(\s*|import\(\s*)['"](kafkajs|@kafkajs\/confluent-schema-registry)(?:\/[^'"]*)?['"]/;

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

test('kafkajs and @kafkajs/confluent-schema-registry are imported only under src/log/kafka/', () => {
  const offenders: string[] = [];
  for (const top of SCANNED) {
    for (const file of sourceFiles(path.join(ROOT, top))) {
      const relative = path.relative(ROOT, file);
      if (relative.startsWith(ADAPTER)) continue;
      if (ENGINE_IMPORT.test(readFileSync(file, 'utf8'))) offenders.push(relative);
    }
  }
  expect(offenders).toEqual([]);
});

test('the port modules import no engine and no adapter', () => {
  for (const file of ['port.ts', 'index.ts', 'schemas.ts', 'rejection-reasons.ts']) {
    const text = readFileSync(path.join(ROOT, 'src', 'log', file), 'utf8');
    expect(text).not.toMatch(ENGINE_IMPORT);
    expect(text).not.toMatch(/from\s+['"]\.\/kafka/);
  }
});
