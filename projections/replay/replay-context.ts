/**
 * What a replay or a verify works with (the service's ports), what it is asked to do, and how the entity,
 * its topic and its targets are looked up from that.
 */
import { DeltabrokerError } from '../../src/errors';
import type { RecordSchemas, TopicOffsets, WriteLog } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SearchIndex } from '../../src/search';
import type { SqlClient } from '../../src/store/sql-client';
import type { EntityConfig, EntityConfigSource } from '../../src/tenant';
import type { TargetChoice } from '../../src/replay';
import type { ReplayTarget } from './replay-target';
import { searchTarget } from './search-target';
import type { ShadowPurpose } from './shadow-names';
import { tableTarget } from './table-target';

export interface ReplayContext {
  readonly log: WriteLog;
  readonly schemas: RecordSchemas;
  readonly entities: EntityConfigSource;
  readonly sql: SqlClient;
  readonly logger: Logger;
  /** The search index (any adapter): search targets build their shadows and swap them in through it. */
  readonly search: SearchIndex;
  /** Checkpoint names of the live projectors, when not the default consumer groups. */
  readonly liveProjectors?: { readonly postgres?: string; readonly search?: string };
}

export async function entityConfigOf(ctx: ReplayContext, tenant: string, entity: string): Promise<EntityConfig> {
  const config = await ctx.entities.get(tenant, entity);
  if (config === undefined)
    throw new DeltabrokerError('DB_NOT_FOUND', `tenant ${tenant} has no entity ${entity}`, { field: 'entity', rule: 'exists', stage: 'replay' });
  return config;
}

export async function topicOffsetsOf(ctx: ReplayContext, topic: string): Promise<TopicOffsets[]> {
  try {
    return await ctx.log.topicOffsets(topic);
  } catch (error) {
    throw new DeltabrokerError(
      'DB_NOT_FOUND',
      `persistence topic ${topic} cannot be read: ${(error as Error).message}`,
      { field: 'entity', rule: 'topic-exists', stage: 'replay' },
      { cause: error },
    );
  }
}

/** True when other configured entities write to the same persistence topic. */
export async function topicIsShared(ctx: ReplayContext, config: EntityConfig): Promise<boolean> {
  const all = (await ctx.entities.list()).configs;
  return all.some((c) => c.persistence.topic === config.persistence.topic && !(c.tenant === config.tenant && c.entity === config.entity));
}

export function targetsFor(ctx: ReplayContext, config: EntityConfig, choice: TargetChoice, purpose: ShadowPurpose): ReplayTarget[] {
  const targets: ReplayTarget[] = [];
  if (choice !== 'search') {
    targets.push(
      tableTarget({ sql: ctx.sql, config, logger: ctx.logger, purpose, ...(ctx.liveProjectors?.postgres && { liveProjector: ctx.liveProjectors.postgres }) }),
    );
  }
  if (choice !== 'postgres') {
    targets.push(
      searchTarget({
        sql: ctx.sql,
        search: ctx.search,
        config,
        logger: ctx.logger,
        purpose,
        ...(ctx.liveProjectors?.search && { liveProjector: ctx.liveProjectors.search }),
      }),
    );
  }
  return targets;
}
