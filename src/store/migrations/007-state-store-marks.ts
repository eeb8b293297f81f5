import type { Migration } from './index';

/**
 * The pipeline's catch-up marks (src/store/record-states/postgres-record-states.ts): one row per running process,
 * written before it catches the state store up with the log. The table is unlogged, so PostgreSQL empties it after
 * crash recovery and a promoted replica starts without it: exactly when the state writes, committed without waiting
 * for their WAL flush, may be gone. A missing mark tells the process to catch up again before it decides a delta.
 */
export const stateStoreMarks: Migration = {
  version: 7,
  name: 'state-store-marks',
  statements: [
    `create unlogged table state_store_marks (
       process text primary key,
       marked_at timestamptz not null default now()
     )`,
  ],
};
