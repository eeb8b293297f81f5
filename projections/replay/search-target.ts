/**
 * The search index of an entity on the Postgres search adapter as a replay target: the shadow is an index
 * named `<index>__rebuild` (its own table and catalog entry), filled the way the search projector fills the
 * live one, and swapped in by renaming its table and catalog entry in the swap transaction. Elasticsearch
 * (an alias moved to a new index) is not built yet.
 */
import { maskErasedDocuments } from '../erased-personal-fields';
import type { EntityEvent, LogRecord } from '../../src/log';
import type { Logger } from '../../src/logger';
import { createPostgresSearchIndex, DEFAULT_SEARCH_SCHEMA, type SearchDocument, type SearchIndex } from '../../src/search';
import { ensureCatalog, tableOf } from '../../src/search/postgres/schema';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import { quoteIdent, quoteQualified } from '../../src/store/sql-identifier';
import type { EntityConfig } from '../../src/tenant';
import { indexDefinitionOf } from '../search/search-projector';
import { SEARCH_PROJECTOR_GROUP } from '../../src/log/topology';
import { advanceCheckpoint, claimCheckpoint } from '../postgres/checkpoint-store';
import { checkpointsOf, dropCheckpoints, lockCheckpoints, writeCheckpoints, type Positions } from './checkpoints';
import type { ReplayTarget, ShadowState } from './replay-target';
import { shadowName, shadowProjector, type ShadowPurpose } from './shadow-names';

export interface SearchTargetOptions {
  readonly sql: SqlClient;
  readonly config: EntityConfig;
  readonly logger: Logger;
  readonly purpose: ShadowPurpose;
  /** Schema of the Postgres search adapter (default `search`, as the adapter's). */
  readonly schema?: string;
  /** The live search projector's checkpoints' name (its consumer group); default SEARCH_PROJECTOR_GROUP. */
  readonly liveProjector?: string;
  /** The service's live search index, whose cached definition is refreshed after the swap. */
  readonly liveIndex?: SearchIndex;
}

/** The catalog table of the Postgres search adapter (src/search/postgres/schema.ts). */
const CATALOG = '_indexes';

export function searchTarget(o: SearchTargetOptions): ReplayTarget {
  const schema = o.schema ?? DEFAULT_SEARCH_SCHEMA;
  const liveDefinition = indexDefinitionOf(o.config);
  const live = liveDefinition.name;
  const shadow = shadowName(live, o.purpose);
  const shadowDefinition = { ...liveDefinition, name: shadow };
  const topic = o.config.persistence.topic;
  const shadowProjectorName = shadowProjector('search', o.purpose, `${schema}.${shadow}`);
  const liveProjector = o.liveProjector ?? SEARCH_PROJECTOR_GROUP;
  const index = createPostgresSearchIndex(o.sql, { schema });
  const exists = async (sql: SqlExecutor, name: string): Promise<boolean> =>
    (await sql.query<{ present: boolean }>('select to_regclass($1) is not null as present', [tableOf(schema, name)])).rows[0]?.present === true;
  const forgetShadow = async (sql: SqlExecutor): Promise<void> => {
    if ((await sql.query<{ present: boolean }>('select to_regclass($1) is not null as present', [quoteQualified(CATALOG, schema)])).rows[0]?.present) {
      await sql.query(`delete from ${quoteQualified(CATALOG, schema)} where name = $1`, [shadow]);
    }
  };

  const discard = async (): Promise<void> => {
    await o.sql.query(`drop table if exists ${tableOf(schema, shadow)}`);
    await forgetShadow(o.sql);
    await dropCheckpoints(o.sql, shadowProjectorName, topic);
  };

  return {
    kind: 'search',
    live,
    shadow,
    liveProjector,
    shadowProjector: shadowProjectorName,
    liveWritesBeforeCheckpoint: true,
    shadowExists: () => exists(o.sql, shadow),

    async prepare(start: Positions, seedFromLive: boolean): Promise<ShadowState> {
      const checkpoints = await checkpointsOf(o.sql, shadowProjectorName, topic);
      if (checkpoints.size > 0 && (await exists(o.sql, shadow))) {
        await index.ensureIndex(shadowDefinition); // follows a changed configuration in place (word columns)
        return { resumed: true, checkpoints };
      }
      await discard();
      await index.ensureIndex(shadowDefinition);
      // Seeded and given checkpoints in one transaction; a shadow without checkpoints is discarded next time.
      await o.sql.transaction(async (tx) => {
        if (seedFromLive && (await exists(tx, live))) {
          await tx.query(`insert into ${tableOf(schema, shadow)} (id, source, version) select id, source, version from ${tableOf(schema, live)}`);
        }
        await writeCheckpoints(tx, shadowProjectorName, topic, start);
      });
      return { resumed: false, checkpoints: start };
    },

    applier(sql: SqlClient) {
      return async (batch) => {
        await sql.transaction(async (tx) => {
          const ref = { projector: shadowProjectorName, topic: batch.topic, partition: batch.partition };
          const before = await claimCheckpoint(tx, ref);
          const fresh = batch.records.filter((r) => BigInt(r.offset) >= before);
          const last = fresh.at(-1);
          if (last === undefined) return;
          const { upserts, deletes } = documentChanges(o.config, fresh);
          const writes = index.writeIn(tx);
          if (upserts.length > 0) await writes.upsert(shadow, await maskErasedDocuments(tx, o.config, upserts));
          if (deletes.length > 0) await writes.delete(shadow, deletes);
          await advanceCheckpoint(tx, ref, BigInt(last.offset) + 1n);
        });
      };
    },

    async lockLive(tx, partitions) {
      const checkpoints = await lockCheckpoints(tx, liveProjector, topic, partitions);
      // The search projector writes the index before its checkpoint: hold its writes until the swap is done.
      if (await exists(tx, live)) await tx.query(`lock table ${tableOf(schema, live)} in access exclusive mode`);
      return checkpoints;
    },

    async swap(tx: SqlExecutor): Promise<void> {
      await ensureCatalog(tx, schema); // takes the adapter's DDL lock
      await tx.query(`drop table if exists ${tableOf(schema, live)}`);
      await tx.query(`alter table ${tableOf(schema, shadow)} rename to ${quoteIdent(live, 'table')}`);
      await forgetShadow(tx);
      await tx.query(
        `insert into ${quoteQualified(CATALOG, schema)} (name, definition) values ($1, $2::jsonb)
         on conflict (name) do update set definition = excluded.definition, updated_at = now()`,
        [live, JSON.stringify(liveDefinition)],
      );
      await dropCheckpoints(tx, shadowProjectorName, topic);
    },

    async afterSwap(): Promise<void> {
      await o.liveIndex?.ensureIndex(liveDefinition);
    },

    discard,
  };
}

/** What the search projector would write for these events: the newest event per key, an upsert or a delete. */
function documentChanges(config: EntityConfig, records: readonly LogRecord<EntityEvent>[]): { upserts: SearchDocument[]; deletes: string[] } {
  const newest = new Map<string, EntityEvent>();
  for (const { value } of records) if (value.tenant === config.tenant && value.entity === config.entity) newest.set(value.key, value);
  const upserts: SearchDocument[] = [];
  const deletes: string[] = [];
  for (const event of newest.values()) {
    if (event.payload === null) deletes.push(event.key);
    else upserts.push({ id: event.key, source: JSON.parse(event.payload) as Record<string, unknown>, version: event.version });
  }
  return { upserts, deletes };
}
