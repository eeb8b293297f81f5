/**
 * Ownership of the physical names that the naming rules (physical-names.ts) cannot keep apart on their own:
 * topics Kafka would take for one another (it folds `.` and `_`), and tables or indexes that two entities of
 * one tenant configure alike. The first configuration seen claims its names in `physical_name_claims`
 * (migration 005); a later one that maps onto a claimed name is refused with DB_CONFLICT wherever
 * configurations are looked up (and listed among the refused), so the pipeline, the projectors and the read side
 * agree on one owner.
 * Topics belong to a tenant (its entities may share one); tables and indexes to one entity.
 */
import { DeltabrokerError } from '../errors';
import type { SqlClient } from '../store/sql-client';
import type { EntityConfig } from './entity-config';
import { localActionTopic, physicalNamesOf, topicCollisionKey } from './physical-names';
import { isEntityConfigRefusal, NAME_TAKEN_RULE, refusedEntry } from './refusals';
import { entityListing, type EntityConfigSource, type EntityListing } from './source';
import { STAGES } from '../log/topology/stages';

interface Claim {
  readonly kind: 'topic' | 'table' | 'index';
  /** The name as collisions see it: a topic folded, a table qualified by its schema. */
  readonly name: string;
  readonly owner: string;
  /** The configuration field that chose the name. */
  readonly field: string;
}

/** The names `config` needs, on an instance of `datacenter` (whose local action topic it writes). */
export function claimsOf(config: EntityConfig, datacenter: string): Claim[] {
  const names = physicalNamesOf(config);
  const entity = `${config.tenant}/${config.entity}`;
  const { methods, globalTopic } = config.notifications;
  const topic = (name: string, field: string): Claim => ({ kind: 'topic', name: topicCollisionKey(name), owner: config.tenant, field });
  return [
    topic(names.topic, 'persistence.topic'),
    ...(methods.includes('global') ? [topic(globalTopic, 'notifications.globalTopic')] : []),
    ...(methods.includes('local') ? [topic(localActionTopic(config, datacenter), 'notifications.localTopicPrefix')] : []),
    { kind: 'table', name: `${names.schema}.${names.table}`, owner: entity, field: 'persistence.table' },
    { kind: 'index', name: names.index, owner: entity, field: 'persistence.index' },
  ];
}

export interface ClaimingSourceOptions {
  readonly sql: SqlClient;
  readonly datacenter: string;
}

/** Where a name-taken refusal comes from: the claims, not the configuration's own file or resource. */
export const NAME_CLAIMS_SOURCE = 'physical_name_claims';

/**
 * An EntityConfigSource that hands out a configuration only once its names are claimed for it: `get` throws
 * DB_CONFLICT (rule `name-taken`) for a configuration whose names another owns, `list` reports it among the
 * refused. A claim is made once per configuration shape and then remembered.
 */
export class ClaimingEntityConfigSource implements EntityConfigSource {
  private readonly granted = new Map<string, string>();
  private readonly grantedObjects = new WeakSet<EntityConfig>();

  constructor(
    private readonly inner: EntityConfigSource,
    private readonly o: ClaimingSourceOptions,
  ) {}

  async get(tenant: string, entity: string): Promise<EntityConfig | undefined> {
    const config = await this.inner.get(tenant, entity);
    if (config !== undefined) await this.claim(config);
    return config;
  }

  async list(tenant?: string): Promise<EntityListing> {
    const listing = await this.inner.list(tenant);
    const configs: EntityConfig[] = [];
    const refused = [...listing.refused];
    for (const config of listing.configs) {
      try {
        await this.claim(config);
        configs.push(config);
      } catch (error) {
        if (!isEntityConfigRefusal(error)) throw error;
        refused.push(refusedEntry(config.tenant, config.entity, error));
      }
    }
    return entityListing(configs, refused);
  }

  private async claim(config: EntityConfig): Promise<void> {
    // Sources hand out the same object while a configuration is unchanged: the per-delta look-up stops here.
    if (this.grantedObjects.has(config)) return;
    const id = `${config.tenant}/${config.entity}`;
    const claims = claimsOf(config, this.o.datacenter);
    const signature = JSON.stringify(claims);
    if (this.granted.get(id) === signature) return void this.grantedObjects.add(config);
    const rows = JSON.stringify(claims.map(({ kind, name, owner }) => ({ kind, name, owner })));
    // One transaction, so a refused configuration claims nothing; two statements, so the select sees a claim
    // another instance committed while the insert waited on it.
    await this.o.sql.transaction(async (tx) => {
      await tx.query(
        `insert into physical_name_claims (kind, name, owner)
         select kind, name, owner from jsonb_to_recordset($1::jsonb) as r(kind text, name text, owner text)
         on conflict (kind, name) do nothing`,
        [rows],
      );
      const owners = await tx.query<{ kind: string; name: string; owner: string }>(
        `select c.kind, c.name, c.owner from physical_name_claims c
           join jsonb_to_recordset($1::jsonb) as r(kind text, name text) on c.kind = r.kind and c.name = r.name`,
        [rows],
      );
      const ownerOf = new Map(owners.rows.map((r) => [`${r.kind}:${r.name}`, r.owner]));
      const taken = claims.find((c) => ownerOf.get(`${c.kind}:${c.name}`) !== c.owner);
      if (taken !== undefined) throw refusal(config, taken, ownerOf.get(`${taken.kind}:${taken.name}`) ?? '');
    });
    this.granted.set(id, signature);
    this.grantedObjects.add(config);
  }
}

function refusal(config: EntityConfig, claim: Claim, owner: string): DeltabrokerError {
  // Another tenant's name is not told: only that the object is not this tenant's.
  const whose = owner.startsWith(`${config.tenant}/`) ? `entity ${owner.slice(config.tenant.length + 1)} of the same tenant` : 'another tenant';
  const why = claim.kind === 'topic' ? ' (Kafka takes "." and "_" in topic names for the same character)' : '';
  return new DeltabrokerError(
    'DB_CONFLICT',
    `the ${claim.kind} that ${config.tenant}/${config.entity} configures with ${claim.field} belongs to ${whose}${why}; configure another name`,
    { field: claim.field, rule: NAME_TAKEN_RULE, stage: STAGES.entityConfig, source: NAME_CLAIMS_SOURCE },
  );
}
