import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { quoteIdent } from '../../src/store/sql-identifier';
import { physicalNamesOf, type EntityConfig } from '../../src/tenant';

const ROOT = path.resolve(__dirname, '../..');

/** A temp entities folder: the shipped configuration plus the test fixtures. */
export function testEntitiesDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-entities-'));
  cpSync(path.join(ROOT, 'config/entities'), dir, { recursive: true });
  cpSync(path.join(ROOT, 'test/fixtures/entities'), dir, { recursive: true });
  return dir;
}

/** An entity's projection table, schema-qualified and quoted, optionally with a shadow's suffix (`__rebuild`). */
export function qualifiedTable(config: EntityConfig, suffix = ''): string {
  const { schema, table } = physicalNamesOf(config);
  return `${quoteIdent(schema, 'schema')}."${table}${suffix}"`;
}
