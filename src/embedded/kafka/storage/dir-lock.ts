import fs from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'broker.lock';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One broker per data directory: `broker.lock` holds the owner's pid. A lock left by a process that is
 * gone (a crash) is taken over; one held by a live process, this one included, refuses the start.
 */
export function lockDataDir(dir: string): () => void {
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(`embedded kafka: data directory ${dir} is in use by process ${owner}`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`embedded kafka: could not lock data directory ${dir}`);
}
