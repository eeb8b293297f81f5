/** Finding and reading `schemas/*.avsc`, from the sources or from the compiled `dist/` tree alike. */
import { DeltabrokerError } from '../errors';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The schemas directory: the nearest `schemas/` holding DeltaEnvelope.avsc, walking up from this file. */
export function schemasDir(): string {
  const override = process.env.DELTABROKER_SCHEMAS_DIR;
  if (override) return override;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'schemas');
    if (existsSync(path.join(candidate, 'DeltaEnvelope.avsc'))) return candidate;
    if (path.dirname(dir) === dir) {
      throw new DeltabrokerError('DB_INTERNAL', `no schemas/DeltaEnvelope.avsc above ${__dirname} (set DELTABROKER_SCHEMAS_DIR)`, {
        stage: 'startup',
        rule: 'installed-schemas',
      });
    }
  }
}

/** Every `.avsc` of the directory by file name without extension, parsed as JSON. */
export function readSchemaDefinitions(dir: string = schemasDir()): Record<string, object> {
  const out: Record<string, object> = {};
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()) {
    out[file.slice(0, -'.avsc'.length)] = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as object;
  }
  return out;
}
