/**
 * What a replay rebuilds: one projection of one entity (its Postgres table, or its search index), built as a
 * shadow beside the live one and swapped in. The rebuild (rebuild.ts) drives every target from one read of
 * the persistence topic; each target keeps its own shadow checkpoints, so it knows where to resume.
 */
import type { LogRecord, ProjectedEvent, RecordBatch } from '../../src/log';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import type { EntityConfig, EntityConfigSource } from '../../src/tenant';
import type { ReplayTargetKind } from '../../src/replay';
import type { Positions } from './checkpoints';

export interface ShadowState {
  /** True when an earlier, interrupted replay left a usable shadow: its checkpoints say where to go on. */
  readonly resumed: boolean;
  /** The shadow's checkpoints (where each partition goes on). */
  readonly checkpoints: Positions;
}

export interface ReplayTarget {
  readonly kind: ReplayTargetKind;
  /** Live table (`schema.table`) or index name, and the shadow's. */
  readonly live: string;
  readonly shadow: string;
  /** Checkpoints' names: the live projector's (handed over at the swap) and the shadow's. */
  readonly liveProjector: string;
  readonly shadowProjector: string;
  /**
   * The live projector writes before it stores its checkpoint (the search projector): at the swap its shadow
   * must reach the end of the log, not only the live checkpoints.
   */
  readonly liveWritesBeforeCheckpoint: boolean;
  /** Whether the shadow (table or index) is there now; read-only, for dry runs. */
  shadowExists(): Promise<boolean>;
  /**
   * Finds a resumable shadow, or creates a fresh one with checkpoints at `start` (seeded with a copy of the
   * live rows when `seedFromLive`: a replay that does not start at the beginning re-applies a tail over them).
   */
  prepare(start: Positions, seedFromLive: boolean): Promise<ShadowState>;
  /** What writes a pass's records into the shadow and advances its checkpoints, through `sql`. */
  writer(sql: SqlClient): ShadowWriter;
  /**
   * Inside the swap transaction, before the final catch-up: locks what keeps the live projector from writing
   * (its checkpoints, which it holds while it writes) and
   * answers the live checkpoints.
   */
  lockLive(tx: SqlExecutor, partitions: readonly number[]): Promise<Positions>;
  /** Inside the swap transaction: the shadow takes the live one's name; the live one is dropped. */
  swap(tx: SqlExecutor): Promise<void>;
  /** After the swap committed (e.g. refresh a cached index definition). */
  afterSwap(): Promise<void>;
  /** Drops the shadow and its checkpoints. */
  discard(): Promise<void>;
}

/**
 * A target's side of a pass over the topic (log-pass.ts): it takes each partition's batches as they are read and
 * keeps of them what its shadow needs (for the table, each record's change so far), then writes that in runs.
 */
export interface ShadowWriter {
  /** Before each pass: reads where the shadow's checkpoints are; records below them are not taken. */
  begin(): Promise<void>;
  /** Takes a batch of one partition; a partition's batches come in offset order. */
  take(batch: RecordBatch<ProjectedEvent>): void;
  /**
   * Writes what was taken of `partition` since its last write, with the shadow's checkpoint, and resolves once both are
   * stored. Batches taken meanwhile go to the next write. `reread` reads the records of `partition` in [from, end) again
   * from the log, for a run whose records cannot all be folded as they were read.
   */
  write(partition: number, reread: RunReader): Promise<void>;
}

/** The records of a partition in [from, end), read again from the log. */
export type RunReader = (partition: number, from: bigint, end: bigint) => Promise<LogRecord<ProjectedEvent>[]>;

/** An entity source that knows only `config` (under the entity's own name): other entities sharing the topic are passed over. */
export function onlyEntity(config: EntityConfig): EntityConfigSource {
  return {
    get: async (tenant, entity) => (tenant === config.tenant && entity === config.entity ? config : undefined),
    list: async () => ({ configs: [config], refused: [] }),
  };
}

/** The configuration with its table (and index) renamed to the shadow's. */
export const withPersistence = (config: EntityConfig, change: Partial<EntityConfig['persistence']>): EntityConfig => ({
  ...config,
  persistence: { ...config.persistence, ...change },
});
