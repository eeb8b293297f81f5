import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * This instance's lasting name: generated once and kept in `<data dir>/instance-id`, so a restart on the same data
 * directory is the same instance (its transactional ids fence what the process before it left open).
 */
export function loadOrCreateInstanceId(dataDir: string): string {
  const file = path.join(dataDir, 'instance-id');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return kept;
  }
  const id = randomUUID();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}
