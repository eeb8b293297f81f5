/**
 * The port through which the service finds entity configuration (seed: "held by a tenant API, looked up on
 * each write"). Adapters: file-source.ts (embedded default), http-source.ts (tenant API), and the in-memory
 * one below (tests, library use).
 */
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { parseEntityConfig } from './parse-entity-config';

export interface EntityConfigSource {
  /** The configuration of one entity, or undefined when the tenant has no such entity. */
  get(tenant: string, entity: string): Promise<EntityConfig | undefined>;
  /** Every configured entity, of one tenant when `tenant` is given, sorted by tenant then entity. */
  list(tenant?: string): Promise<EntityConfig[]>;
}

export const byTenantThenEntity = (a: EntityConfig, b: EntityConfig): number =>
  a.tenant === b.tenant ? (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0) : a.tenant < b.tenant ? -1 : 1;

/** Holds configurations in a map; `put` validates like every other adapter. */
export class InMemoryEntityConfigSource implements EntityConfigSource {
  private readonly configs = new Map<string, EntityConfig>();

  constructor(configs: readonly unknown[] = []) {
    for (const c of configs) this.put(c);
  }

  put(input: unknown): EntityConfig {
    const config = parseEntityConfig(input, 'in-memory entity config');
    this.configs.set(`${config.tenant}/${config.entity}`, config);
    return config;
  }

  remove(tenant: string, entity: string): boolean {
    return this.configs.delete(`${tenant}/${entity}`);
  }

  async get(tenant: string, entity: string): Promise<EntityConfig | undefined> {
    if (!isTenantName(tenant) || !isEntityName(entity)) return undefined;
    return this.configs.get(`${tenant}/${entity}`);
  }

  async list(tenant?: string): Promise<EntityConfig[]> {
    return [...this.configs.values()].filter((c) => tenant === undefined || c.tenant === tenant).sort(byTenantThenEntity);
  }
}
