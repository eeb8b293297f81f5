import type { EntityEvent, LogRecord, RecordBatch, RecordSchemas, WriteLog } from '../../src/log';
import type { Logger } from '../../src/logger';
import { isDocumentRefusal, type GuardedSearchWrites, type IndexDefinition, type SearchDocument, type SearchIndex, type SearchWrites } from '../../src/search';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import { personalFields, physicalNamesOf, type EntityConfig, type EntityConfigSource } from '../../src/tenant';
import { persistenceTopicsOf, SEARCH_PROJECTOR_GROUP } from '../../src/log/topology';
import { maskErasedDocuments } from '../erased-personal-fields';
import type { StoppedTopics } from '../stopped-topics';
import { consumePersistenceTopics, type PersistenceConsumer } from '../persistence-consumer';
import { recordsFrom, underCheckpoints } from '../postgres/checkpoint-store';
import { HeldRounds } from '../postgres/held-round';
import { batchEntityConfigs } from '../batch-entity-configs';
import { indexWriteOf, keepNewest, newestIndexable } from './newest-documents';

export interface SearchProjectorOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  entities: EntityConfigSource;
  search: SearchIndex;
  /** Where the checkpoints that readers wait on are kept. */
  sql: SqlClient;
  logger: Logger;
  groupId?: string;
  /** Where partitions whose position the log lost are reported. */
  stopped?: StoppedTopics;
  /** How long a small round waits for more events (persistence-consumer.ts; the setting `projections.lingerMs`). */
  lingerMs?: number;
  /**
   * The index's writes inside the round's transaction, when the index lives in the same database (the Postgres
   * adapter): documents and checkpoints then commit together, one commit per round. Without it (Elasticsearch)
   * the documents are written first and the checkpoint after the index acknowledged them.
   */
  writesIn?: (tx: SqlExecutor) => SearchWrites;
  /**
   * The same writes as statements (the Postgres adapter): a round on partitions this projector applied last is then
   * one statement, documents and checkpoints together (held-round.ts).
   */
  guardedWrites?: GuardedSearchWrites;
}

export type SearchProjector = PersistenceConsumer;

/** The search index of an entity, as declared by its configuration. */
export const indexDefinitionOf = (config: EntityConfig): IndexDefinition => ({
  name: physicalNamesOf(config).index,
  fields: Object.entries(config.fields).map(([name, field]) => ({ name, type: field.type, ...(field.sensitive ? { sensitive: true } : {}) })),
});

/**
 * Feeds the search index from the persistence topics. Events carry the record's whole state, so each becomes an
 * upsert (or a delete) of one document with the event's version; the index ignores a version below the one it
 * holds, so a batch delivered again changes nothing. Per partition, only the newest event of a key in a batch
 * is written, and records below the stored checkpoint are skipped. The checkpoint, which readers wait on and a
 * replay's handover moves, commits with the documents when the index is in the same database (`writesIn`), else
 * after the index acknowledged them.
 */
export async function startSearchProjector(o: SearchProjectorOptions): Promise<SearchProjector> {
  const projector = o.groupId ?? SEARCH_PROJECTOR_GROUP;
  const logger = o.logger.child({ component: 'search-projector' });
  const { configs } = await o.entities.list();
  for (const config of configs) await o.search.ensureIndex(indexDefinitionOf(config));
  const topics = persistenceTopicsOf(configs);
  const held = new HeldRounds(o.sql, projector);
  const consumer = await consumePersistenceTopics({
    log: o.log,
    schemas: o.schemas,
    sql: o.sql,
    logger,
    projector,
    topics,
    concurrency: 3,
    ...(o.stopped && { stopped: o.stopped }),
    ...(o.lingerMs !== undefined && { lingerMs: o.lingerMs }),
    applyRound: async (batches, knowns) => {
      try {
        return await applyRound(batches, knowns, false);
      } catch (error) {
        // The index refused a document: written again with every document checked first, the refused ones passed over.
        if (!isDocumentRefusal(error)) throw error;
        return applyRound(batches, knowns, true);
      }
    },
  });
  logger.info({ topics }, 'search projector running');
  return consumer;

  /** The round's documents, `checked` against their index's definition before they are written (newest-documents.ts). */
  async function applyRound(batches: readonly RecordBatch<EntityEvent>[], knowns: readonly (bigint | undefined)[], checked: boolean): Promise<bigint[]> {
    let afters: bigint[];
    try {
      afters = (await applyHeld(batches, checked)) ?? (await applyClaimed(batches, knowns, checked));
    } catch (error) {
      held.settled(batches, undefined);
      throw error;
    }
    held.settled(batches, afters);
    return afters;
  }

  /** The round in one statement (held-round.ts), or undefined when it must be claimed. */
  async function applyHeld(batches: readonly RecordBatch<EntityEvent>[], checked: boolean): Promise<bigint[] | undefined> {
    if (!o.guardedWrites) return undefined;
    const befores = held.befores(batches);
    if (befores === undefined) return undefined;
    const newest = newestEvents(batches, befores);
    const configOf = await batchEntityConfigs(o.entities, newest.values());
    const configs = new Set([...newest.values()].map((event) => configOf(event.tenant, event.entity)));
    // Erased subjects' values are masked after a read under a lock (erased-personal-fields.ts): not in one statement.
    if ([...configs].some((config) => config !== undefined && personalFields(config).length > 0)) return undefined;
    const { upserts, deletes } = writesOf(newest, configOf, { batches, froms: befores, logger }, checked);
    const docs = new Map([...upserts].map(([index, entry]) => [index, entry.docs]));
    return (await held.write(batches, befores, await o.guardedWrites(docs, deletes)))?.afters;
  }

  // A round's batches are written while their checkpoint rows are held (claimed first, advanced last), so a
  // replay's swap, which holds the same rows, never runs between a write to the old index and its checkpoint.
  function applyClaimed(batches: readonly RecordBatch<EntityEvent>[], knowns: readonly (bigint | undefined)[], checked: boolean): Promise<bigint[]> {
    return o.sql.transaction(async (tx) => {
      const { afters } = await underCheckpoints(
        tx,
        projector,
        batches,
        async (froms) => {
          const newest = newestEvents(batches, froms);
          const { upserts, deletes } = writesOf(newest, await batchEntityConfigs(o.entities, newest.values()), { batches, froms, logger }, checked);
          const writes = o.writesIn?.(tx) ?? o.search;
          for (const [index, { config, docs }] of upserts) await writes.upsert(index, await maskErasedDocuments(tx, config, docs));
          for (const [index, ids] of deletes) await writes.delete(index, ids);
        },
        knowns,
      );
      return afters;
    });
  }
}

/**
 * Each record's newest event in the round at or above its partition's checkpoint (`froms`; records below it are
 * already in the index, a replay's handover may have moved it ahead). A record lives on one partition.
 */
function newestEvents(batches: readonly RecordBatch<EntityEvent>[], froms: readonly bigint[]): Map<string, EntityEvent> {
  const newest = new Map<string, EntityEvent>();
  batches.forEach((batch, i) => {
    for (const { value } of recordsFrom(batch.records, froms[i] as bigint)) {
      keepNewest(newest, `${value.tenant}/${value.entity}/${value.key}`, value);
    }
  });
  return newest;
}

/** The round the newest events came from, where a record's older events are found when the index refuses its newest. */
interface RoundRecords {
  readonly batches: readonly RecordBatch<EntityEvent>[];
  readonly froms: readonly bigint[];
  readonly logger: Logger;
}

/**
 * The documents per index of the newest events, and the ids deleted; events of entities without configuration are
 * passed over, and so are those whose documents the index refuses (newest-documents.ts; all of them when `checked`,
 * else those whose payload is not a JSON object), with a warning each.
 */
function writesOf(
  newest: ReadonlyMap<string, EntityEvent>,
  configOf: (tenant: string, entity: string) => EntityConfig | undefined,
  round: RoundRecords,
  checked: boolean,
): { upserts: Map<string, { config: EntityConfig; docs: SearchDocument[] }>; deletes: Map<string, string[]> } {
  const upserts = new Map<string, { config: EntityConfig; docs: SearchDocument[] }>();
  const deletes = new Map<string, string[]>();
  const refused = new Map<string, EntityConfig>();
  const add = (config: EntityConfig, write: ReturnType<typeof indexWriteOf>): void => {
    const index = physicalNamesOf(config).index;
    if (write.kind === 'delete') {
      const ids = deletes.get(index);
      if (ids) ids.push(write.id);
      else deletes.set(index, [write.id]);
    } else if (write.kind === 'upsert') {
      const entry = upserts.get(index);
      if (entry) entry.docs.push(write.doc);
      else upserts.set(index, { config, docs: [write.doc] });
    }
  };
  for (const [id, event] of newest) {
    const config = configOf(event.tenant, event.entity);
    if (!config) continue;
    const write = indexWriteOf(event, checked ? definitionOf(config) : undefined);
    if (write.kind === 'refused') refused.set(id, config);
    else add(config, write);
  }
  if (refused.size > 0) {
    for (const [id, records] of recordsOf(round, refused)) {
      const config = refused.get(id) as EntityConfig;
      const { write, passedOver } = newestIndexable(records, definitionOf(config));
      for (const { record, reason } of passedOver)
        round.logger.warn({ topic: record.topic, partition: record.partition, offset: record.offset, reason }, 'event not indexable; passed over');
      if (write) add(config, write);
    }
  }
  return { upserts, deletes };
}

/** The round's records (at or above their checkpoints) of the records named in `ids`, per id. */
function recordsOf(round: RoundRecords, ids: ReadonlyMap<string, unknown>): Map<string, LogRecord<EntityEvent>[]> {
  const found = new Map<string, LogRecord<EntityEvent>[]>();
  round.batches.forEach((batch, i) => {
    for (const record of recordsFrom(batch.records, round.froms[i] as bigint)) {
      const { tenant, entity, key } = record.value;
      const id = `${tenant}/${entity}/${key}`;
      if (!ids.has(id)) continue;
      const records = found.get(id);
      if (records) records.push(record);
      else found.set(id, [record]);
    }
  });
  return found;
}

const definitions = new WeakMap<EntityConfig, IndexDefinition>();

/** The index definition an entity's documents are checked against, made once per configuration. */
function definitionOf(config: EntityConfig): IndexDefinition {
  let definition = definitions.get(config);
  if (definition === undefined) definitions.set(config, (definition = indexDefinitionOf(config)));
  return definition;
}
