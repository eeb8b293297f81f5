import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeltabrokerError } from '../errors';
import { formatIdentity, isRunning, ownIdentity, parseIdentity } from './process-liveness';

/**
 * One owner per data directory: `<dir>/<name>.lock` names the owning process (PID and start time). A lock whose
 * owner is gone (killed, a zombie, or a PID now used by another process) is taken over at once, so a restart
 * right after a SIGKILL works; one held by a running process refuses with DB_CONFLICT.
 */
export function lockDataDir(dir: string, name: string, what: string): () => void {
  const file = path.join(dir, `${name}.lock`);
  const own = formatIdentity(ownIdentity());
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, own, { flag: 'wx', mode: 0o600 });
      return () => {
        if (readFileSync(file, 'utf8') === own) rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = parseIdentity(readFileSync(file, 'utf8'));
      if (isRunning(holder)) {
        throw new DeltabrokerError('DB_CONFLICT', `${what} in ${dir} is in use by process ${holder.pid}`, {
          field: 'DELTABROKER_DATA_DIR',
          rule: 'single-owner',
          stage: 'startup',
        });
      }
      rmSync(file, { force: true });
    }
  }
  throw new DeltabrokerError('DB_CONFLICT', `could not lock ${dir} for ${what}`, { field: 'DELTABROKER_DATA_DIR', rule: 'single-owner', stage: 'startup' });
}
