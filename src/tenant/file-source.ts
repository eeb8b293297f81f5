/**
 * File-backed entity configuration, the embedded default: `<directory>/<tenant>/<entity>.yaml`.
 *
 * Each `get` stats the file (cheap) and re-reads it only when its modification time, size or inode changed,
 * so an edited file takes effect on the next write without a restart. A file that cannot be read, parsed or
 * validated refuses its entity alone (DB_ENTITY_CONFIG_INVALID naming the file, the field and the rule); the
 * previous good version is NOT served (a broken file should be noticed, not hidden). `list` reports such files,
 * and files whose names are not a tenant and an entity name, among the refused; only a folder that cannot be
 * read fails it.
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DeltabrokerError } from '../errors';
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { parseEntityConfig } from './parse-entity-config';
import { entityConfigInvalid, isEntityConfigRefusal, refusedEntry, type RefusedEntityConfig } from './refusals';
import { entityListing, type EntityConfigSource, type EntityListing } from './source';
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
  /** The configuration, or the refusal of the file as it was at `stamp`. */
  loaded: EntityConfig | DeltabrokerError;
  checkedAt: number;
}

const stampOf = (s: Stats): string => `${s.ino}:${s.size}:${s.mtimeMs}`;
const isNotFound = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};
const answer = (loaded: EntityConfig | DeltabrokerError): EntityConfig => {
  if (loaded instanceof DeltabrokerError) throw loaded;
  return loaded;
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
    if (fresh !== undefined && Date.now() - fresh.checkedAt < this.recheckMs) return answer(fresh.loaded);
    let stats: Stats;
    try {
      stats = await fs.stat(file);
    } catch (e) {
      if (isNotFound(e)) {
        this.cache.delete(file);
        return undefined;
      }
      throw this.unreadable(file, e);
    }
    const stamp = stampOf(stats);
    const cached = this.cache.get(file);
    if (cached !== undefined && cached.stamp === stamp) {
      cached.checkedAt = Date.now();
      return answer(cached.loaded);
    }
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      throw this.unreadable(file, e);
    }
    // A refusal is kept with the file's stamp like a configuration: it stands until the file changes.
    let loaded: EntityConfig | DeltabrokerError;
    try {
      loaded = this.parse(text, path.relative(this.directory, file), tenant, entity);
    } catch (e) {
      if (!isEntityConfigRefusal(e)) throw e;
      loaded = e;
    }
    this.cache.set(file, { stamp, loaded, checkedAt: Date.now() });
    return answer(loaded);
  }

  async list(tenant?: string): Promise<EntityListing> {
    const tenants = tenant === undefined ? await this.subdirectories() : isTenantName(tenant) ? [tenant] : [];
    const configs: EntityConfig[] = [];
    const refused: RefusedEntityConfig[] = [];
    for (const t of tenants) {
      for (const file of await this.yamlFiles(t)) {
        const entity = file.slice(0, -CONFIG_FILE_EXTENSION.length);
        try {
          if (!isTenantName(t) || !isEntityName(entity)) throw this.badFileName(`${t}/${file}`);
          const config = await this.get(t, entity);
          if (config !== undefined) configs.push(config);
        } catch (error) {
          if (!isEntityConfigRefusal(error)) throw error;
          refused.push(refusedEntry(t, entity, error));
        }
      }
    }
    return entityListing(configs, refused);
  }

  private parse(text: string, rel: string, tenant: string, entity: string): EntityConfig {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw entityConfigInvalid(`entity config file ${rel} is not valid YAML: ${(e as Error).message}`, { source: rel, field: '(file)', rule: 'yaml' }, e);
    }
    const config = parseEntityConfig(doc, rel);
    if (config.tenant !== tenant || config.entity !== entity) {
      const field = config.tenant !== tenant ? 'tenant' : 'entity';
      throw entityConfigInvalid(`entity config file ${rel} declares ${config.tenant}/${config.entity}; its path says ${tenant}/${entity}`, {
        source: rel,
        field,
        rule: 'path-mismatch',
      });
    }
    return config;
  }

  private badFileName(rel: string): DeltabrokerError {
    return entityConfigInvalid(
      `entity config file ${rel}: its folder and name must be a tenant and an entity name (lowercase words of letters and digits joined by single underscores)`,
      { source: rel, field: '(file name)', rule: 'file-name' },
    );
  }

  /** One file that cannot be read refuses its entity alone (a permission, a directory named like a file). */
  private unreadable(file: string, e: unknown): DeltabrokerError {
    const rel = path.relative(this.directory, file);
    return entityConfigInvalid(`cannot read entity config file ${rel}: ${(e as Error).message}`, { source: rel, field: '(file)', rule: 'read' }, e);
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
      throw this.folderError(this.directory, e);
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
      throw this.folderError(path.join(this.directory, tenant), e);
    }
  }

  /** A folder that cannot be read fails the whole listing: which entities it holds is unknown. */
  private folderError(folder: string, e: unknown): DeltabrokerError {
    return new DeltabrokerError(
      'DB_INTERNAL',
      `cannot read the entity configuration folder ${folder}: ${(e as Error).message}`,
      { field: folder, rule: 'read', stage: STAGES.entityConfig },
      { cause: e },
    );
  }
}
