/**
 * The consumers of SubjectErased records (`<tenant>.subjects.erased`), one consumer group each, so a failing
 * one is retried without holding the others:
 * - the table scrub: personal fields of the subject's rows become the marker (columns and `_doc`);
 * - the search scrub: the same in the search documents, so their erased values no longer match;
 * - the erase emitter: an `erase` action on the entity's action topics, so subscribers scrub their copies.
 * Every step is idempotent: a record delivered again, or an erasure repeated, changes nothing more.
 */
import type { ActionEvent, OutgoingRecord, RecordSchemas, Subscription, SubjectErased, WriteLog } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SearchIndex } from '../../src/search';
import type { SqlClient } from '../../src/store/sql-client';
import {
  actionTopics,
  ERASED_MARKER,
  personalFields,
  physicalNamesOf,
  subjectErasureTopic,
  type EntityConfig,
  type EntityConfigSource,
} from '../../src/tenant';
import { projectionTableOf } from '../postgres/table-schema';
import { SUBJECT_ERASURE_GROUPS } from '../../src/log/topology';

export interface ErasureConsumerOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  entities: EntityConfigSource;
  sql: SqlClient;
  search: SearchIndex;
  datacenter: string;
  logger: Logger;
}

/** The configurations a SubjectErased record reaches: its entities that still name a subject and personal fields. */
async function erasedEntities(entities: EntityConfigSource, record: SubjectErased): Promise<EntityConfig[]> {
  const out: EntityConfig[] = [];
  for (const entity of record.entities) {
    const config = await entities.get(record.tenant, entity);
    if (config?.subject !== undefined && personalFields(config).length > 0) out.push(config);
  }
  return out;
}

/** Personal columns and `_doc` keys of the subject's rows become the marker; null and absent values stay. */
export async function scrubTable(sql: SqlClient, config: EntityConfig, subject: string): Promise<number> {
  const table = projectionTableOf(config);
  const subjectColumn = table.fieldColumns.find((c) => c.name === config.subject);
  const names = personalFields(config);
  const personal = table.fieldColumns.filter((c) => names.includes(c.name));
  if (!subjectColumn) return 0;
  const assignments = personal.map((c) => `${c.ident} = case when ${c.ident} is null then null else $2 end`);
  try {
    const result = await sql.query(
      `update ${table.qualifiedName} set ${[...assignments, `"_doc" = "_doc" || (select coalesce(jsonb_object_agg(f, to_jsonb($2::text)), '{}'::jsonb) from unnest($3::text[]) as f where jsonb_typeof("_doc" -> f) = 'string')`].join(', ')}
        where ${subjectColumn.ident} = $1 and exists (select 1 from unnest($3::text[]) as f where jsonb_typeof("_doc" -> f) = 'string' and "_doc" ->> f <> $2)`,
      [subject, ERASED_MARKER, personal.map((c) => c.name)],
    );
    return result.rowCount;
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return 0; // no table: nothing was projected
    throw error;
  }
}

function eraseAction(config: EntityConfig, record: SubjectErased, datacenter: string): ActionEvent {
  const id = `erase/${record.tenant}/${config.entity}/${record.subject}`;
  return {
    eventId: id,
    deltaId: id,
    tenant: record.tenant,
    entity: config.entity,
    operation: 'erase',
    key: record.subject,
    version: 0,
    payload: JSON.stringify({ subject: record.subject, subjectField: config.subject, fields: personalFields(config) }),
    user: record.erasedBy,
    datacenter,
    occurredAt: record.erasedAt,
    emittedAt: Date.now(),
  };
}

export async function startSubjectErasureConsumers(o: ErasureConsumerOptions): Promise<Subscription[]> {
  const logger = o.logger.child({ component: 'subject-erasures' });
  const tenants = [...new Set((await o.entities.list()).configs.filter((c) => c.subject !== undefined && personalFields(c).length > 0).map((c) => c.tenant))];
  if (tenants.length === 0) return [];
  const topics = tenants.map(subjectErasureTopic);
  await o.log.createTopics(topics.map((topic) => ({ topic, partitions: 1, config: { 'retention.ms': '-1' } })));
  const consume = (groupId: string, handle: (config: EntityConfig, record: SubjectErased) => Promise<void>) =>
    o.log.subscribe<SubjectErased>({
      groupId,
      topics,
      readerSchema: o.schemas.SubjectErased,
      handleBatch: async (batch) => {
        for (const { value } of batch.records) for (const config of await erasedEntities(o.entities, value)) await handle(config, value);
      },
    });
  const subscriptions = await Promise.all([
    consume(SUBJECT_ERASURE_GROUPS.table, async (config, record) => {
      const rows = await scrubTable(o.sql, config, record.subject);
      logger.info({ tenant: record.tenant, entity: config.entity, subject: record.subject, rows }, 'erased subject scrubbed from table');
    }),
    consume(SUBJECT_ERASURE_GROUPS.search, async (config, record) => {
      const docs = await o.search.maskFields(
        physicalNamesOf(config).index,
        { field: config.subject as string, value: record.subject },
        personalFields(config),
        ERASED_MARKER,
      );
      logger.info({ tenant: record.tenant, entity: config.entity, subject: record.subject, docs }, 'erased subject scrubbed from search index');
    }),
    consume(SUBJECT_ERASURE_GROUPS.emitter, async (config, record) => {
      const actions: OutgoingRecord[] = actionTopics(config, o.datacenter).map((topic) => ({
        topic,
        key: `${record.tenant}/${config.entity}/${record.subject}`,
        value: eraseAction(config, record, o.datacenter),
        schema: o.schemas.ActionEvent,
        headers: { 'event-id': `erase/${record.tenant}/${config.entity}/${record.subject}` },
      }));
      if (actions.length > 0) await o.log.publish(actions);
    }),
  ]);
  await Promise.all(subscriptions.map((s) => s.joined));
  logger.info({ topics }, 'subject erasure consumers running');
  return subscriptions;
}
