import type { EntityConfig, EntityConfigSource } from '../src/tenant';

/**
 * The configurations of a batch's entities, each looked up once. A batch is nearly always one entity's records,
 * and an awaited look-up per record (a cache hit, but several promise hops) cost the emitters and the search
 * projector more than their own work on the record.
 */
export async function batchEntityConfigs(
  entities: EntityConfigSource,
  events: Iterable<{ readonly tenant: string; readonly entity: string }>,
): Promise<(tenant: string, entity: string) => EntityConfig | undefined> {
  const found = new Map<string, EntityConfig | undefined>();
  for (const { tenant, entity } of events) {
    const id = `${tenant}\0${entity}`;
    if (!found.has(id)) found.set(id, await entities.get(tenant, entity));
  }
  return (tenant, entity) => found.get(`${tenant}\0${entity}`);
}
