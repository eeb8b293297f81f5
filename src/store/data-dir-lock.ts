import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeltabrokerError } from '../errors';

/**
 * PGlite is a single-process database: a second process opening the same directory would corrupt it. The first
 * process takes this pid lock; a lock left by a dead process is taken over.
 */
export function lockDataDir(dir: string): () => void {
  const file = path.join(dir, 'deltabroker.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => {
        if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8'));
      if (isAlive(holder) && holder !== process.pid) {
        throw new DeltabrokerError(
          'DB_CONFLICT',
          `the embedded database in ${dir} is in use by process ${holder} (a running deltabroker); stop it, use its HTTP admin routes, or set DATABASE_URL`,
          { field: 'DELTABROKER_DATA_DIR', rule: 'single-process', stage: 'startup' },
        );
      }
      unlinkSync(file);
    }
  }
  throw new DeltabrokerError('DB_CONFLICT', `could not lock ${dir}`, { field: 'DELTABROKER_DATA_DIR', rule: 'single-process', stage: 'startup' });
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
