/**
 * File-backed entity configuration, the embedded default: `<directory>/<tenant>/<entity>.yaml`.
 *
 * Each `get` stats the file (cheap) and re-reads it only when its modification time, size or inode changed,
 * so an edited file takes effect on the next write without a restart. A file that fails to parse or
 * validate throws a DB_INTERNAL error naming the file and the field path; the previous good version is NOT
 * served (a broken file should be noticed, not hidden).
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DeltabrokerError } from '../errors';
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { parseEntityConfig } from './parse-entity-config';
import { byTenantThenEntity, type EntityConfigSource } from './source';
import { STAGES } from '../log/topology/stages';

export const CONFIG_FILE_EXTENSION = '.yaml';

export interface FileEntityConfigSourceOptions {
  /** The folder holding one sub-folder per tenant, e.g. `config/entities`. */
  directory: string;
  /**
   * How long a cached configuration is served before its file is checked again (default 0: on every get).
   * The service uses a second, so the write path does not stat a file per delta.
   */
  recheckMs?: number;
}

interface CacheEntry {
  stamp: string;
  config: EntityConfig;
  checkedAt: number;
}

const stampOf = (s: Stats): string => `${s.ino}:${s.size}:${s.mtimeMs}`;
const isNotFound = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

export class FileEntityConfigSource implements EntityConfigSource {
  readonly directory: string;
  private readonly recheckMs: number;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(options: FileEntityConfigSourceOptions) {
    this.directory = path.resolve(options.directory);
    this.recheckMs = options.recheckMs ?? 0;
  }

  /** The file that holds (or would hold) the configuration of tenant/entity. */
  fileOf(tenant: string, entity: string): string {
    return path.join(this.directory, tenant, `${entity}${CONFIG_FILE_EXTENSION}`);
  }

  async get(tenant: string, entity: string): Promise<EntityConfig | undefined> {
    // Names that cannot be configured cannot exist; this also keeps `..` and `/` out of the path.
    if (!isTenantName(tenant) || !isEntityName(entity)) return undefined;
    const file = this.fileOf(tenant, entity);
    const fresh = this.cache.get(file);
    if (fresh !== undefined && Date.now() - fresh.checkedAt < this.recheckMs) return fresh.config;
    let stats: Stats;
    try {
      stats = await fs.stat(file);
    } catch (e) {
      if (isNotFound(e)) {
        this.cache.delete(file);
        return undefined;
      }
      throw this.readError(file, e);
    }
    const stamp = stampOf(stats);
    const cached = this.cache.get(file);
    if (cached !== undefined && cached.stamp === stamp) {
      cached.checkedAt = Date.now();
      return cached.config;
    }
    const config = await this.load(file, tenant, entity);
    this.cache.set(file, { stamp, config, checkedAt: Date.now() });
    return config;
  }

  async list(tenant?: string): Promise<EntityConfig[]> {
    const tenants = tenant === undefined ? await this.subdirectories() : isTenantName(tenant) ? [tenant] : [];
    const out: EntityConfig[] = [];
    for (const t of tenants) {
      for (const file of await this.yamlFiles(t)) {
        const entity = file.slice(0, -CONFIG_FILE_EXTENSION.length);
        const rel = `${t}/${file}`;
        if (!isTenantName(t) || !isEntityName(entity)) {
          throw new DeltabrokerError('DB_INTERNAL', `entity config file ${rel}: tenant and entity names must be lowercase identifiers`, {
            field: rel,
            rule: 'file-name',
            stage: STAGES.entityConfig,
          });
        }
        const config = await this.get(t, entity);
        if (config !== undefined) out.push(config);
      }
    }
    return out.sort(byTenantThenEntity);
  }

  private async load(file: string, tenant: string, entity: string): Promise<EntityConfig> {
    const rel = path.relative(this.directory, file);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      throw this.readError(file, e);
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw new DeltabrokerError(
        'DB_INTERNAL',
        `entity config file ${rel} is not valid YAML: ${(e as Error).message}`,
        {
          field: rel,
          rule: 'yaml',
          stage: STAGES.entityConfig,
        },
        { cause: e },
      );
    }
    const config = parseEntityConfig(doc, rel);
    if (config.tenant !== tenant || config.entity !== entity) {
      throw new DeltabrokerError('DB_INTERNAL', `entity config file ${rel} declares ${config.tenant}/${config.entity}; its path says ${tenant}/${entity}`, {
        field: config.tenant !== tenant ? 'tenant' : 'entity',
        rule: 'path-mismatch',
        stage: STAGES.entityConfig,
        source: rel,
      });
    }
    return config;
  }

  private async subdirectories(): Promise<string[]> {
    try {
      const entries = await fs.readdir(this.directory, { withFileTypes: true });
      return entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch (e) {
      if (isNotFound(e)) return [];
      throw this.readError(this.directory, e);
    }
  }

  private async yamlFiles(tenant: string): Promise<string[]> {
    try {
      const entries = await fs.readdir(path.join(this.directory, tenant), { withFileTypes: true });
      return entries
        .filter((e) => e.isFile() && e.name.endsWith(CONFIG_FILE_EXTENSION))
        .map((e) => e.name)
        .sort();
    } catch (e) {
      if (isNotFound(e)) return [];
      throw this.readError(path.join(this.directory, tenant), e);
    }
  }

  private readError(file: string, e: unknown): DeltabrokerError {
    return new DeltabrokerError(
      'DB_INTERNAL',
      `cannot read entity configuration ${file}: ${(e as Error).message}`,
      {
        field: file,
        rule: 'read',
        stage: STAGES.entityConfig,
      },
      { cause: e },
    );
  }
}
