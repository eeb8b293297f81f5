/**
 * The port through which the service finds entity configuration (seed: "held by a tenant API, looked up on
 * each write"). Adapters: file-source.ts (embedded default), http-source.ts (tenant API), and the in-memory
 * one below (tests, library use).
 *
 * One entity's invalid configuration never fails the source: `get` refuses that entity alone and `list` reports
 * it among the refused ones, beside the configurations it serves. Only a source that fails as a whole (a folder
 * that cannot be read, a tenant API that does not answer) makes them throw.
 */
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { parseEntityConfig } from './parse-entity-config';
import type { RefusedEntityConfig } from './refusals';

export type { RefusedEntityConfig } from './refusals';

export interface EntityConfigSource {
  /**
   * The configuration of one entity, or undefined when the tenant has no such entity. A refused configuration
   * throws its refusal (DB_ENTITY_CONFIG_INVALID; see refusals.ts), never an older version in its place.
   */
  get(tenant: string, entity: string): Promise<EntityConfig | undefined>;
  /** Every entity, of one tenant when `tenant` is given: the configurations served and the ones refused. */
  list(tenant?: string): Promise<EntityListing>;
}

export interface EntityListing {
  /** Sorted by tenant, then entity. */
  readonly configs: EntityConfig[];
  /** Sorted the same way. */
  readonly refused: RefusedEntityConfig[];
}

/** Orders configurations and refusals alike: by tenant, then entity. */
export const byTenantThenEntity = (a: { tenant: string; entity: string }, b: { tenant: string; entity: string }): number =>
  a.tenant === b.tenant ? (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0) : a.tenant < b.tenant ? -1 : 1;

/** A listing with both parts sorted. */
export const entityListing = (configs: EntityConfig[], refused: RefusedEntityConfig[] = []): EntityListing => ({
  configs: configs.sort(byTenantThenEntity),
  refused: refused.sort(byTenantThenEntity),
});

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

  async list(tenant?: string): Promise<EntityListing> {
    return entityListing([...this.configs.values()].filter((c) => tenant === undefined || c.tenant === tenant));
  }
}
