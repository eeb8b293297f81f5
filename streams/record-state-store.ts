import type { DeltaOutcomeReader, DeltaOutcomeRow } from '../src/store/delta-outcomes';
import type { SqlClient, SqlExecutor } from '../src/store/sql-client';
import type { StateCheckpoint } from './recorded-offsets';
import { deltaKey } from '../src/log/topology';

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

/** What stage 3 reads: the states of a batch's records, loaded before the batch is decided (batch-state-view.ts). */
export interface LoadedStates {
  get(id: RecordId): RecordState;
}

/** One verdict to store: an accepted delta with its record's new state, or a refused one. */
export type StoredVerdict =
  | { status: 'accepted'; id: RecordId; state: RecordState; outcome: Extract<DeltaOutcomeRow, { status: 'accepted' }> }
  | { status: 'refused'; tenant: string; outcome: Extract<DeltaOutcomeRow, { status: 'refused' }> };

interface OutcomeColumns {
  delta_id: string;
  tenant: string;
  status: 'accepted' | 'refused';
  event_id: string | null;
  version: string | number | null;
  topic: string | null;
  partition: number | null;
  log_offset: string | null;
  problem: Record<string, unknown> | null;
}

const OUTCOME_COLUMNS = 'delta_id, tenant, status, event_id, version, topic, partition, log_offset, problem';

/** Identifies a record in maps. */
export const recordIdKey = (id: RecordId): string => JSON.stringify([id.tenant, id.entity, id.key]);

/**
 * The pipeline's state store (PostgreSQL): per record its version, per delta its outcome. It is
 * derived from the persistence topics: `applyEvent` is idempotent (a version at or below the stored one is
 * ignored), so replaying a topic into an empty store rebuilds it.
 */
export class RecordStateStore implements DeltaOutcomeReader {
  constructor(private readonly sql: SqlClient) {}

  async get(id: RecordId): Promise<RecordState> {
    const result = await this.sql.query<{ version: string | number; deleted: boolean; doc: Record<string, unknown> | null }>(
      'select version, deleted, doc from record_state where tenant = $1 and entity = $2 and record_key = $3',
      [id.tenant, id.entity, id.key],
    );
    const row = result.rows[0];
    return row ? { version: Number(row.version), deleted: row.deleted, doc: row.doc } : { version: 0, deleted: true, doc: null };
  }

  /** The stored outcome of `tenant`'s delta (delta ids are unique per tenant only). */
  async outcome(deltaId: string, tenant: string): Promise<DeltaOutcomeRow | undefined> {
    const result = await this.sql.query<OutcomeColumns>(`select ${OUTCOME_COLUMNS} from delta_outcomes where tenant = $1 and delta_id = $2`, [tenant, deltaId]);
    const row = result.rows[0];
    return row ? outcomeRowOf(row) : undefined;
  }

  /** The stored outcomes of several deltas in one query, by deltaKey(tenant, delta id). */
  async outcomes(deltas: readonly { tenant: string; deltaId: string }[]): Promise<Map<string, DeltaOutcomeRow>> {
    const found = new Map<string, DeltaOutcomeRow>();
    if (deltas.length === 0) return found;
    const result = await this.sql.query<OutcomeColumns>(
      `select o.* from delta_outcomes o join jsonb_to_recordset($1::jsonb) as r(tenant text, delta_id text) on o.tenant = r.tenant and o.delta_id = r.delta_id`,
      [JSON.stringify(deltas.map((d) => ({ tenant: d.tenant, delta_id: d.deltaId })))],
    );
    for (const row of result.rows) found.set(deltaKey(row.tenant, row.delta_id), outcomeRowOf(row));
    return found;
  }

  /** The states of several records in one query, by recordIdKey; records never written are absent. */
  async getMany(ids: readonly RecordId[]): Promise<Map<string, RecordState>> {
    const found = new Map<string, RecordState>();
    if (ids.length === 0) return found;
    const result = await this.sql.query<{ tenant: string; entity: string; record_key: string; version: string | number; deleted: boolean; doc: Record<string, unknown> | null }>(
      `select s.tenant, s.entity, s.record_key, s.version, s.deleted, s.doc
         from record_state s join jsonb_to_recordset($1::jsonb) as r(tenant text, entity text, record_key text)
           on s.tenant = r.tenant and s.entity = r.entity and s.record_key = r.record_key`,
      [JSON.stringify(ids.map((id) => ({ tenant: id.tenant, entity: id.entity, record_key: id.key })))],
    );
    for (const row of result.rows) {
      found.set(recordIdKey({ tenant: row.tenant, entity: row.entity, key: row.record_key }), { version: Number(row.version), deleted: row.deleted, doc: row.doc });
    }
    return found;
  }

  /**
   * Records a batch of verdicts in one transaction with two statements: the records' newest states (a batch
   * may change one record several times; a stored state only moves forward) and the deltas' outcomes.
   */
  async recordVerdicts(verdicts: readonly StoredVerdict[]): Promise<void> {
    if (verdicts.length === 0) return;
    await this.sql.transaction((tx) => writeVerdicts(tx, verdicts));
  }

  /**
   * Moves state checkpoints forward (never back), in a statement of their own: the pipeline's concurrent state
   * transactions would otherwise all wait on the same checkpoint rows.
   */
  async storeCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void> {
    if (checkpoints.length > 0) await writeCheckpoints(this.sql, checkpoints);
  }

  /**
   * Applies persisted events read back from one topic partition (startup catch-up, rebuild), as one transaction
   * with the partition's checkpoint. Idempotent: versions at or below the stored one and known deltas change
   * nothing.
   */
  async applyEvents(
    events: readonly { id: RecordId; deltaId: string; eventId: string; version: number; doc: Record<string, unknown> | null; offset: string }[],
    partition: { topic: string; partition: number; nextOffset: string },
  ): Promise<void> {
    const verdicts: StoredVerdict[] = events.map((e) => ({
      status: 'accepted',
      id: e.id,
      state: { version: e.version, deleted: e.doc === null, doc: e.doc },
      outcome: { status: 'accepted', deltaId: e.deltaId, eventId: e.eventId, version: e.version, topic: partition.topic, partition: partition.partition, offset: e.offset },
    }));
    await this.sql.transaction(async (tx) => {
      if (verdicts.length > 0) await writeVerdicts(tx, verdicts);
      await writeCheckpoints(tx, [partition]);
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


/** Moves state checkpoints forward (never back) inside the caller's transaction. */
async function writeCheckpoints(tx: SqlExecutor, checkpoints: readonly StateCheckpoint[]): Promise<void> {
  await tx.query(
    `insert into state_checkpoints (topic, partition, next_offset)
     select topic, partition, next_offset from jsonb_to_recordset($1::jsonb) as r(topic text, partition integer, next_offset bigint)
     on conflict (topic, partition) do update set next_offset = greatest(state_checkpoints.next_offset, excluded.next_offset)`,
    [JSON.stringify(checkpoints.map((c) => ({ topic: c.topic, partition: c.partition, next_offset: c.nextOffset })))],
  );
}

/** Writes verdicts inside the caller's transaction: the newest state per record, and every delta's outcome. */
async function writeVerdicts(tx: SqlExecutor, verdicts: readonly StoredVerdict[]): Promise<void> {
  const newest = new Map<string, { tenant: string; entity: string; record_key: string; version: number; deleted: boolean; doc: Record<string, unknown> | null }>();
  for (const v of verdicts) {
    if (v.status !== 'accepted') continue;
    const key = recordIdKey(v.id);
    if ((newest.get(key)?.version ?? 0) < v.state.version) {
      newest.set(key, { tenant: v.id.tenant, entity: v.id.entity, record_key: v.id.key, version: v.state.version, deleted: v.state.deleted, doc: v.state.doc });
    }
  }
  const outcomes = verdicts.map((v) =>
    v.status === 'accepted'
      ? { delta_id: v.outcome.deltaId, tenant: v.id.tenant, status: 'accepted', event_id: v.outcome.eventId, version: v.outcome.version, topic: v.outcome.topic, partition: v.outcome.partition, log_offset: v.outcome.offset, problem: null }
      : { delta_id: v.outcome.deltaId, tenant: v.tenant, status: 'refused', event_id: null, version: null, topic: null, partition: null, log_offset: null, problem: v.outcome.problem },
  );
  if (newest.size > 0) {
    await tx.query(
      `insert into record_state (tenant, entity, record_key, version, deleted, doc)
       select tenant, entity, record_key, version, deleted, doc
         from jsonb_to_recordset($1::jsonb) as r(tenant text, entity text, record_key text, version bigint, deleted boolean, doc jsonb)
       on conflict (tenant, entity, record_key) do update
         set version = excluded.version, deleted = excluded.deleted, doc = excluded.doc, updated_at = now()
       where record_state.version < excluded.version`,
      [JSON.stringify([...newest.values()])],
    );
  }
  await tx.query(
    `insert into delta_outcomes (${OUTCOME_COLUMNS})
     select ${OUTCOME_COLUMNS}
       from jsonb_to_recordset($1::jsonb) as r(delta_id text, tenant text, status text, event_id text, version bigint, topic text, partition integer, log_offset text, problem jsonb)
     on conflict (tenant, delta_id) do nothing`,
    [JSON.stringify(outcomes)],
  );
}

function outcomeRowOf(row: OutcomeColumns): DeltaOutcomeRow {
  if (row.status === 'refused') return { status: 'refused', deltaId: row.delta_id, problem: row.problem ?? {} };
  return {
    status: 'accepted',
    deltaId: row.delta_id,
    eventId: row.event_id ?? '',
    version: Number(row.version),
    topic: row.topic ?? '',
    partition: Number(row.partition),
    offset: row.log_offset ?? '',
  };
}
