/**
 * The entities refused right now, as the service last saw them: an EntityConfigSource that passes every call on
 * and remembers the refusals its answers carry. A listing (at start, and on each metrics scrape) sets them;
 * a `get` (each write, read, search or delta) refreshes that one entity's, so a file that breaks or is fixed while
 * the service runs shows at its next use. Readiness and the refused-configurations gauge read it without asking
 * the source again. It logs each refusal when it appears or changes, and when it clears.
 */
import type { Logger } from '../logger';
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { isEntityConfigRefusal, refusedEntry, type RefusedEntityConfig } from './refusals';
import { byTenantThenEntity, type EntityConfigSource, type EntityListing } from './source';

export class RefusalTrackingSource implements EntityConfigSource {
  private readonly refusals = new Map<string, RefusedEntityConfig>();

  constructor(
    private readonly inner: EntityConfigSource,
    private readonly logger: Logger,
  ) {}

  async get(tenant: string, entity: string): Promise<EntityConfig | undefined> {
    try {
      const config = await this.inner.get(tenant, entity);
      // Names that cannot be configured are never looked up: a refused file name stays until the next listing.
      if (isTenantName(tenant) && isEntityName(entity)) this.clear(keyOf(tenant, entity));
      return config;
    } catch (error) {
      if (isEntityConfigRefusal(error)) this.record(refusedEntry(tenant, entity, error));
      throw error;
    }
  }

  async list(tenant?: string): Promise<EntityListing> {
    const listing = await this.inner.list(tenant);
    const now = new Set(listing.refused.map((r) => keyOf(r.tenant, r.entity)));
    for (const [key, refusal] of this.refusals) {
      if ((tenant === undefined || refusal.tenant === tenant) && !now.has(key)) this.clear(key);
    }
    for (const refusal of listing.refused) this.record(refusal);
    return listing;
  }

  /** The refused entities, sorted by tenant then entity. */
  refused(): RefusedEntityConfig[] {
    return [...this.refusals.values()].sort(byTenantThenEntity);
  }

  private record(refusal: RefusedEntityConfig): void {
    const key = keyOf(refusal.tenant, refusal.entity);
    if (this.refusals.get(key)?.message === refusal.message) return;
    this.refusals.set(key, refusal);
    const { message, ...fields } = refusal;
    this.logger.error({ ...fields, reason: message }, 'entity configuration refused; its entity answers with its code, every other entity serves');
  }

  private clear(key: string): void {
    const refusal = this.refusals.get(key);
    if (refusal === undefined) return;
    this.refusals.delete(key);
    this.logger.info({ tenant: refusal.tenant, entity: refusal.entity, source: refusal.source }, 'entity configuration no longer refused');
  }
}

const keyOf = (tenant: string, entity: string): string => `${tenant}\u0000${entity}`;
