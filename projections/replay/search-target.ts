/**
 * The search index of an entity as a replay target, through the search port only: the shadow is an index
 * named like the live one plus a suffix, built with the usual writes and swapped in by the port (a table
 * rename in one transaction on Postgres, an alias move on Elasticsearch). Shadow writes are version-fenced
 * and idempotent, so they go before the shadow's checkpoint: a batch written again after a crash changes
 * nothing.
 */
import type { Logger } from '../../src/logger';
import type { SearchIndex } from '../../src/search';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import type { EntityConfig } from '../../src/tenant';
import { indexDefinitionOf } from '../search/search-projector';
import { SEARCH_PROJECTOR_GROUP } from '../../src/log/topology';
import { checkpointsOf, dropCheckpoints, lockCheckpoints, writeCheckpoints, type Positions } from './checkpoints';
import type { ReplayTarget, ShadowState } from './replay-target';
import { shadowName, shadowProjector, type ShadowPurpose } from './shadow-names';
import { SearchRunWriter } from './search-run-writer';

export interface SearchTargetOptions {
  /** Where the checkpoints are kept. */
  readonly sql: SqlClient;
  readonly search: SearchIndex;
  readonly config: EntityConfig;
  readonly logger: Logger;
  readonly purpose: ShadowPurpose;
  /** The live search projector's checkpoints' name (its consumer group); default SEARCH_PROJECTOR_GROUP. */
  readonly liveProjector?: string;
}

export function searchTarget(o: SearchTargetOptions): ReplayTarget {
  const liveDefinition = indexDefinitionOf(o.config);
  const live = liveDefinition.name;
  const shadow = shadowName(live, o.purpose);
  const shadowDefinition = { ...liveDefinition, name: shadow };
  const topic = o.config.persistence.topic;
  const shadowProjectorName = shadowProjector('search', o.purpose, shadow);
  const liveProjector = o.liveProjector ?? SEARCH_PROJECTOR_GROUP;

  const discard = async (): Promise<void> => {
    await o.search.drop(shadow);
    await dropCheckpoints(o.sql, shadowProjectorName, topic);
  };

  return {
    kind: 'search',
    live,
    shadow,
    liveProjector,
    shadowProjector: shadowProjectorName,
    liveWritesBeforeCheckpoint: true,
    shadowExists: () => o.search.exists(shadow),

    async prepare(start: Positions, seedFromLive: boolean): Promise<ShadowState> {
      const checkpoints = await checkpointsOf(o.sql, shadowProjectorName, topic);
      if (checkpoints.size > 0 && (await o.search.exists(shadow))) {
        await o.search.ensureIndex(shadowDefinition); // follows a changed configuration in place
        return { resumed: true, checkpoints };
      }
      await dropCheckpoints(o.sql, shadowProjectorName, topic);
      await o.search.createShadow(shadowDefinition, seedFromLive ? live : undefined);
      // Checkpoints last: a shadow without checkpoints is replaced by a fresh one next time.
      await o.sql.transaction((tx) => writeCheckpoints(tx, shadowProjectorName, topic, start));
      return { resumed: false, checkpoints: start };
    },

    writer: (sql: SqlClient) =>
      new SearchRunWriter({ search: o.search, shadow, config: o.config, sql, projector: shadowProjectorName, topic, logger: o.logger }),

    // The live search projector writes the index while it holds its checkpoint (see search-projector.ts), so
    // holding the checkpoints holds its writes until the swap is done.
    lockLive: (tx, partitions) => lockCheckpoints(tx, liveProjector, topic, partitions),

    async swap(tx: SqlExecutor): Promise<void> {
      await dropCheckpoints(tx, shadowProjectorName, topic);
      // Last in the swap transaction: the index swap is the engine's own step and cannot be rolled back with
      // it. Should the transaction fail afterwards, the live projector re-applies from its old checkpoint,
      // which the version fence makes harmless.
      await o.search.swapShadow(shadow, live);
    },

    async afterSwap(): Promise<void> {
      // The port's swap already gave `live` the shadow's definition.
    },

    discard,
  };
}
