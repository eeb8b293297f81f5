/** The service's lag source: its consumer groups through the log admin, its projectors through their checkpoints. */
import type { SqlExecutor } from '../store/sql-client';
import type { EntityConfigSource } from '../tenant';
import { PIPELINE_GROUPS, PIPELINE_TOPICS } from '../log/topology';
import { PROJECTORS, persistenceTopics, serviceGroups } from './consumer-groups';
import { consumerLag, projectionLag, watermarks, type Checkpoint } from './lag';
import type { LogAdmin } from '../log';
import type { LagSource } from './metrics';

export interface ServiceLagOptions {
  readonly admin: LogAdmin;
  readonly entities: EntityConfigSource;
  /** Where `projection_checkpoints` lives. */
  readonly sql: SqlExecutor;
  readonly datacenter: string;
}

export async function readCheckpoints(sql: SqlExecutor): Promise<Checkpoint[]> {
  const result = await sql.query<{ projector: string; topic: string; partition: number; next_offset: string | number | bigint }>(
    'select projector, topic, partition, next_offset from projection_checkpoints',
  );
  return result.rows.map((r) => ({ projector: r.projector, topic: r.topic, partition: Number(r.partition), nextOffset: BigInt(r.next_offset) }));
}

export function serviceLagSource(o: ServiceLagOptions): LagSource {
  return async () => {
    const { configs } = await o.entities.list();
    const persistence = persistenceTopics(configs);
    const marks = await watermarks(o.admin, [PIPELINE_TOPICS.deltas, ...persistence]);
    const [consumer, checkpoints] = await Promise.all([consumerLag(o.admin, serviceGroups(o.datacenter, configs), marks), readCheckpoints(o.sql)]);
    return { consumer, projection: projectionLag(PROJECTORS, persistence, marks, checkpoints) };
  };
}

/** Deltas on the deltas topic that the pipeline has not decided yet (its group's lag). */
export async function pipelineBacklog(admin: Pick<LogAdmin, 'listTopics' | 'topicOffsets' | 'committedOffsets'>): Promise<number> {
  const marks = await watermarks(admin, [PIPELINE_TOPICS.deltas]);
  const lag = await consumerLag(admin, [{ group: PIPELINE_GROUPS.pipeline, topics: [PIPELINE_TOPICS.deltas] }], marks);
  return lag.reduce((sum, p) => sum + p.lag, 0);
}
