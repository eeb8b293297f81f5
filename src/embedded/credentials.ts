import { DeltabrokerError } from '../errors';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A user name and its password. */
export interface Credential {
  readonly username: string;
  readonly password: string;
}

/** Who talks to an embedded engine: the service itself, and the one user for every other client. */
export interface EngineCredentials {
  readonly service: Credential;
  readonly client: Credential;
}

const generate = (username: string): Credential => ({ username, password: randomBytes(24).toString('base64url') });

/**
 * The credentials of one embedded engine, from `file` (readable by its owner only, 0600), generated on first use.
 * Passwords are written nowhere else: not to logs, not to service.json.
 */
export function loadOrCreateCredentials(file: string, names: { service: string; client: string }): EngineCredentials {
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as EngineCredentials;
    if (stored.service?.password && stored.client?.password) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new DeltabrokerError(
        'DB_INTERNAL',
        `credentials file ${file} cannot be read: ${(error as Error).message}`,
        { stage: 'startup', field: 'file', file },
        { cause: error },
      );
    }
  }
  const fresh: EngineCredentials = { service: generate(names.service), client: generate(names.client) };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
  return fresh;
}

/** The credentials of an engine that another process created, when the file exists. */
export function readCredentials(file: string): EngineCredentials | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as EngineCredentials;
  } catch {
    return undefined;
  }
}
