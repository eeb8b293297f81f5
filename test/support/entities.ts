import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** A temp entities folder: the shipped configuration plus the test fixtures. */
export function testEntitiesDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-entities-'));
  cpSync(path.join(ROOT, 'config/entities'), dir, { recursive: true });
  cpSync(path.join(ROOT, 'test/fixtures/entities'), dir, { recursive: true });
  return dir;
}
