import type { SqlClient, SqlExecutor } from '../src/store/sql-client';

/** What stage 3 needs to know of a record: its newest version, whether it is deleted, and its fields. */
export interface RecordState {
  version: number;
  deleted: boolean;
  /** The record's fields after its newest event; null once deleted. */
  doc: Record<string, unknown> | null;
}

export interface RecordId {
  tenant: string;
  entity: string;
  key: string;
}

/** The outcome of one delta, kept so a redelivered delta is answered again instead of applied twice. */
export type DeltaOutcomeRow =
  | { status: 'accepted'; deltaId: string; eventId: string; version: number; topic: string; partition: number; offset: string }
  | { status: 'refused'; deltaId: string; problem: Record<string, unknown> };

/**
 * The pipeline's state store (Postgres or PGlite): per record its version, per delta its outcome. It is
 * derived from the persistence topics: `applyEvent` is idempotent (a version at or below the stored one is
 * ignored), so replaying a topic into an empty store rebuilds it.
 */
export class RecordStateStore {
  constructor(private readonly sql: SqlClient) {}

  async get(id: RecordId): Promise<RecordState> {
    const result = await this.sql.query<{ version: string | number; deleted: boolean; doc: Record<string, unknown> | null }>(
      'select version, deleted, doc from record_state where tenant = $1 and entity = $2 and record_key = $3',
      [id.tenant, id.entity, id.key],
    );
    const row = result.rows[0];
    return row ? { version: Number(row.version), deleted: row.deleted, doc: row.doc } : { version: 0, deleted: true, doc: null };
  }

  /** The stored outcome of a delta; with `tenant`, only when the delta is that tenant's. */
  async outcome(deltaId: string, tenant?: string): Promise<DeltaOutcomeRow | undefined> {
    const result = await this.sql.query<{
      status: 'accepted' | 'refused';
      event_id: string | null;
      version: string | number | null;
      topic: string | null;
      partition: number | null;
      log_offset: string | null;
      problem: Record<string, unknown> | null;
    }>('select status, event_id, version, topic, partition, log_offset, problem from delta_outcomes where delta_id = $1 and ($2::text is null or tenant = $2)', [
      deltaId,
      tenant ?? null,
    ]);
    const row = result.rows[0];
    if (!row) return undefined;
    if (row.status === 'refused') return { status: 'refused', deltaId, problem: row.problem ?? {} };
    return {
      status: 'accepted',
      deltaId,
      eventId: row.event_id ?? '',
      version: Number(row.version),
      topic: row.topic ?? '',
      partition: Number(row.partition),
      offset: row.log_offset ?? '',
    };
  }

  /** Records an accepted delta: the record's new state and the delta's outcome, in one transaction. */
  async recordAccepted(id: RecordId, state: RecordState, outcome: Extract<DeltaOutcomeRow, { status: 'accepted' }>): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await upsertState(tx, id, state);
      await tx.query(
        `insert into delta_outcomes (delta_id, tenant, status, event_id, version, topic, partition, log_offset)
         values ($1, $2, 'accepted', $3, $4, $5, $6, $7) on conflict (delta_id) do nothing`,
        [outcome.deltaId, id.tenant, outcome.eventId, outcome.version, outcome.topic, outcome.partition, outcome.offset],
      );
    });
  }

  async recordRefused(deltaId: string, tenant: string, problem: Record<string, unknown>): Promise<void> {
    await this.sql.query(
      `insert into delta_outcomes (delta_id, tenant, status, problem) values ($1, $2, 'refused', $3) on conflict (delta_id) do nothing`,
      [deltaId, tenant, JSON.stringify(problem)],
    );
  }

  /** Applies a persisted event read back from its topic (startup catch-up, rebuild). Idempotent. */
  async applyEvent(
    id: RecordId,
    event: { deltaId: string; eventId: string; version: number; deleted: boolean; doc: Record<string, unknown> | null },
    position: { topic: string; partition: number; offset: string },
  ): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await upsertState(tx, id, { version: event.version, deleted: event.deleted, doc: event.doc });
      await tx.query(
        `insert into delta_outcomes (delta_id, tenant, status, event_id, version, topic, partition, log_offset)
         values ($1, $2, 'accepted', $3, $4, $5, $6, $7) on conflict (delta_id) do nothing`,
        [event.deltaId, id.tenant, event.eventId, event.version, position.topic, position.partition, position.offset],
      );
      await tx.query(
        `insert into state_checkpoints (topic, partition, next_offset) values ($1, $2, $3)
         on conflict (topic, partition) do update set next_offset = greatest(state_checkpoints.next_offset, excluded.next_offset)`,
        [position.topic, position.partition, BigInt(position.offset) + 1n],
      );
    });
  }

  /** Where the catch-up of a persistence topic partition resumes. */
  async checkpoint(topic: string, partition: number): Promise<string | undefined> {
    const result = await this.sql.query<{ next_offset: string | number }>(
      'select next_offset from state_checkpoints where topic = $1 and partition = $2',
      [topic, partition],
    );
    const row = result.rows[0];
    return row ? String(row.next_offset) : undefined;
  }
}

async function upsertState(tx: SqlExecutor, id: RecordId, state: RecordState): Promise<void> {
  await tx.query(
    `insert into record_state (tenant, entity, record_key, version, deleted, doc) values ($1, $2, $3, $4, $5, $6)
     on conflict (tenant, entity, record_key) do update
       set version = excluded.version, deleted = excluded.deleted, doc = excluded.doc, updated_at = now()
     where record_state.version < excluded.version`,
    [id.tenant, id.entity, id.key, state.version, state.deleted, state.doc === null ? null : JSON.stringify(state.doc)],
  );
}
