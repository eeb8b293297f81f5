/**
 * The physical objects of an entity: derived from (tenant, entity) and from the names its configuration gives
 * inside the tenant's namespace. The mapping is injective, and a configuration can only name objects of its
 * own tenant:
 *
 * | object | name | apart from every other tenant's because |
 * |---|---|---|
 * | Postgres schema | `tenant_<tenant>` | one per tenant; the prefix keeps it from `public`, `search`, `pg_*` |
 * | projection table | `tenant_<tenant>.<persistence.table>` (default: the entity) | it is inside the tenant's schema |
 * | search index | `<tenant>__<persistence.index>` (default: the entity) | names hold no `__`: the first one ends the tenant |
 * | topics | `<tenant>.<entity>.events`, `.actions.global`, `.actions.<dc>`, or configured names starting with `<tenant>.` | names hold no `.` |
 * | registry subject | `<topic>-value` | it follows the topic |
 *
 * Consumer groups are the service's own (`deltabroker-…`), one per role, never per tenant. Kafka also refuses
 * a topic whose name differs from an existing one only by `.` versus `_` (its metric names fold them), and
 * `acme.merchant_account.events` folds like `acme_merchant.account.events`: `topicCollisionKey` is that
 * folded form, and name-claims.ts lets one tenant own each.
 */
import { DeltabrokerError } from '../errors';
import { MAX_IDENTIFIER_LENGTH } from '../store/sql-identifier';
import { TOPIC_NAME, type EntityConfig } from './entity-config';

/** Every tenant's Postgres schema starts with this; no service schema may. */
export const TENANT_SCHEMA_PREFIX = 'tenant_';
/** Between the tenant and the index name in a search index name. */
const INDEX_SEPARATOR = '__';

export interface PhysicalNames {
  /** The tenant's Postgres schema: its projection tables live there. */
  readonly schema: string;
  /** The projection table, inside `schema`. */
  readonly table: string;
  /** The search index: an Elasticsearch index, or a table of the Postgres search adapter's schema. */
  readonly index: string;
  /** The persistence topic. */
  readonly topic: string;
}

export const tenantSchema = (tenant: string): string => `${TENANT_SCHEMA_PREFIX}${tenant}`;

export const searchIndexName = (tenant: string, index: string): string => `${tenant}${INDEX_SEPARATOR}${index}`;

/** The longest index name a tenant may configure: the whole search index name stays a Postgres identifier. */
export const maxIndexNameLength = (tenant: string): number => MAX_IDENTIFIER_LENGTH - tenant.length - INDEX_SEPARATOR.length;

/** Every topic of a tenant starts with this. */
export const tenantTopicPrefix = (tenant: string): string => `${tenant}.`;

/** The tenant's topic of SubjectErased records (one partition, kept forever like the persistence topics). */
export const subjectErasureTopic = (tenant: string): string => `${tenantTopicPrefix(tenant)}subjects.erased`;

/** The names a configuration gets when it names none (local names for table and index, full topic names). */
export function defaultNames(tenant: string, entity: string) {
  const base = `${tenant}.${entity}`;
  return { topic: `${base}.events`, table: entity, index: entity, globalTopic: `${base}.actions.global`, localTopicPrefix: `${base}.actions` };
}

export function physicalNamesOf(config: EntityConfig): PhysicalNames {
  return {
    schema: tenantSchema(config.tenant),
    table: config.persistence.table,
    index: searchIndexName(config.tenant, config.persistence.index),
    topic: config.persistence.topic,
  };
}

/**
 * The action topics a message that originated in `datacenter` goes to: the global topic when `global` is on,
 * `<localTopicPrefix>.<datacenter>` when `local` is on. Empty when the entity has no notification methods.
 */
export function actionTopics(config: EntityConfig, datacenter: string): string[] {
  const out: string[] = [];
  const { methods, globalTopic } = config.notifications;
  if (methods.includes('global')) out.push(globalTopic);
  if (methods.includes('local')) out.push(localActionTopic(config, datacenter));
  return out;
}

export function localActionTopic(config: EntityConfig, datacenter: string): string {
  if (!TOPIC_NAME.test(datacenter) || datacenter === 'global') {
    throw new DeltabrokerError('DB_INTERNAL', `datacenter name ${JSON.stringify(datacenter)} cannot form a topic name`, {
      field: 'datacenter',
      rule: 'topic-name',
      stage: 'notification',
    });
  }
  return `${config.notifications.localTopicPrefix}.${datacenter}`;
}

/** The form in which Kafka compares topic names for collisions: `.` and `_` are the same. */
export const topicCollisionKey = (topic: string): string => topic.replaceAll('.', '_');
