/** The context shared by the table projection contract cases. */
import type { TableProjection } from '../../../projections/postgres/table-projection';
import type { SqlClient } from '../../../src/store/sql-client';
import type { EntityConfig, EntityConfigSource } from '../../../src/tenant';

export type Row = Record<string, unknown>;

/** What each group of cases gets from the suite: the open backend and helpers over it. */
export interface ProjectionContext {
  sql(): SqlClient;
  /** A projection with a fresh checkpoint name (or `projector`'s), on the suite's client or on `client`. */
  projectionOf(entities: EntityConfigSource, client?: SqlClient, projector?: string): TableProjection;
  /** Every row of an entity's table, by its first key field. */
  rows(config: EntityConfig): Promise<Row[]>;
  rowOf(config: EntityConfig, key: string): Promise<Row | undefined>;
}
