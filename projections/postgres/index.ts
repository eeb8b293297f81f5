/** The Postgres table projector: persistence topics → one table per entity, exactly once in effect. */
export { startTableProjector, type TableProjector, type TableProjectorOptions } from './table-projector';
export { TableProjection, type BatchReport, type TableProjectionOptions } from './table-projection';
export { migrateProjectionTable, projectionTableOf, type ProjectionTable, type TableMigration } from './table-schema';
export { readCheckpoint, type PartitionRef } from './checkpoint-store';
