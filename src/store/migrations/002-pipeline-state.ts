import type { Migration } from './index';

/**
 * The write pipeline's state, derived from the persistence topics: each record's newest version and fields (stage 3),
 * each delta's outcome (so a redelivered delta is answered, not applied twice), and how far each persistence
 * topic partition has been read back into this state.
 */
export const pipelineState: Migration = {
  version: 2,
  name: 'pipeline-state',
  statements: [
    `create table record_state (
       tenant text not null,
       entity text not null,
       record_key text not null,
       version bigint not null,
       deleted boolean not null,
       doc jsonb,
       updated_at timestamptz not null default now(),
       primary key (tenant, entity, record_key)
     )`,
    `create table delta_outcomes (
       delta_id text primary key,
       tenant text not null,
       status text not null check (status in ('accepted', 'refused')),
       event_id text,
       version bigint,
       topic text,
       partition integer,
       log_offset text,
       problem jsonb,
       decided_at timestamptz not null default now()
     )`,
    `create table state_checkpoints (
       topic text not null,
       partition integer not null,
       next_offset bigint not null,
       primary key (topic, partition)
     )`,
  ],
};
