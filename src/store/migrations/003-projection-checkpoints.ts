import type { Migration } from './index';

/**
 * How far each projector has applied each persistence topic partition. A projector writes its row in the
 * same transaction as the projected rows, so after a crash it knows exactly which redelivered records it
 * already applied (the log's consumer offset may lag behind). `projector` separates projectors that read
 * the same topics (the table projector, a rebuild into another schema, …).
 */
export const projectionCheckpoints: Migration = {
  version: 3,
  name: 'projection-checkpoints',
  statements: [
    `create table projection_checkpoints (
       projector text not null,
       topic text not null,
       partition integer not null,
       next_offset bigint not null,
       updated_at timestamptz not null default now(),
       primary key (projector, topic, partition)
     )`,
  ],
};
