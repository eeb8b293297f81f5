/**
 * The record state store on PostgreSQL (tables `record_state`, `delta_outcomes`, `state_checkpoints`, migration
 * 002 and 004; `state_store_marks`, 007). A batch is read or written with a fixed number of statements, whatever its
 * size.
 *
 * The pipeline's verdicts are committed without waiting for their WAL flush (`synchronous_commit = off` for that
 * statement alone): everything they hold is on the log first (the events, fsynced before the states are written),
 * and a lost one is rebuilt from it. What makes that safe is knowing when one may be lost: each process writes an
 * unlogged mark before it catches up (`markCaughtUp`), PostgreSQL empties unlogged tables after crash recovery and
 * a promoted replica has none, and every `readBatch` says whether the mark is still there, so the pipeline catches
 * up again before deciding on states that may have gone. Checkpoints and catch-up writes still wait for the flush,
 * and a checkpoint's flush covers every earlier verdict (WAL is flushed in order), so a checkpoint never counts a
 * verdict a crash could take.
 */
import { randomUUID } from 'node:crypto';
import { arrayLiteral } from '../array-literal';
import { storableText, withNulReplaced } from '../../text/well-formed';
import type { SqlClient, SqlExecutor } from '../sql-client';
import {
  recordIdKey,
  verdictsOfEvents,
  type BatchReads,
  type DeltaOutcomeRow,
  type PersistedEvent,
  type RecordId,
  type RecordState,
  type RecordStateStore,
  type StateCheckpoint,
  type StoredVerdict,
} from './port';

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

/**
 * The pipeline runs the writes and the look-up (`readBatch`) for every round, and under HTTP writes a round is a few
 * dozen deltas: parsed once per connection, and planned once too, since the store's client plans generically
 * (`openStateClient`, composition/store.ts). Every statement here finds its rows by their primary key, so the
 * generic plan is the one a call's values would choose: the look-up's lateral `limit 1` subqueries cannot become a
 * join, and even planned on empty tables they scan the key index (an earlier plain join on the unnested keys, cached
 * while the tables were small, kept scanning them whole as they grew: 2.6 ms a call). Keys travel as typed arrays
 * (`unnest`), sent as literals built in one pass (array-literal.ts): the driver's own conversion was 4 % of a
 * burst's allocations.
 */
const PREPARED = { prepare: true } as const;

export class PostgresRecordStateStore implements RecordStateStore {
  /** This process's catch-up mark (`state_store_marks`). */
  readonly #process = randomUUID();

  constructor(private readonly sql: SqlClient) {}

  async markCaughtUp(): Promise<void> {
    await this.sql.query('insert into state_store_marks (process) values ($1) on conflict (process) do update set marked_at = now()', [this.#process]);
  }

  /** Takes this process's mark away, so a store that outlives the process does not keep it. */
  async unmark(): Promise<void> {
    await this.sql.query('delete from state_store_marks where process = $1', [this.#process]);
  }

  async outcome(deltaId: string, tenant: string): Promise<DeltaOutcomeRow | undefined> {
    const result = await this.sql.query<OutcomeColumns>(`select ${OUTCOME_COLUMNS} from delta_outcomes where tenant = $1 and delta_id = $2`, [tenant, deltaId]);
    const row = result.rows[0];
    return row ? outcomeRowOf(row) : undefined;
  }

  async outcomes(deltas: readonly { tenant: string; deltaId: string }[]): Promise<{ tenant: string; outcome: DeltaOutcomeRow }[]> {
    return deltas.length === 0 ? [] : (await this.readBatch([], deltas)).outcomes;
  }

  async getMany(ids: readonly RecordId[]): Promise<Map<string, RecordState>> {
    return ids.length === 0 ? new Map() : (await this.readBatch(ids, [])).states;
  }

  /**
   * Both look-ups in one statement: states are the rows with a record key, outcomes the rows with an outcome.
   * Each key is looked up through its primary key (a lateral subquery with `limit 1` cannot be flattened into a
   * join): with a plain join on the unnested keys the planner chose a hash join over a scan of the whole table
   * once a batch held a few hundred keys, 30-60 ms per batch at 30,000 records and growing with the table.
   * The one-row `mark` side makes every answer carry whether this process's catch-up mark is still there, even when
   * no key is found (its other columns are then null). Prepared like the writes: every round of the pipeline
   * runs it, and parsing it anew was about a third of its server time.
   */
  async readBatch(allIds: readonly RecordId[], allDeltas: readonly { tenant: string; deltaId: string }[]): Promise<BatchReads> {
    // A name holding U+0000 cannot be stored (storableText), so nothing stored answers it; sent, it would fail the
    // statement, and with it the batch of every tenant, at each retry. The pipeline refuses such deltas.
    const ids = allIds.filter((id) => storableText(id.tenant) && storableText(id.entity) && storableText(id.key));
    const deltas = allDeltas.filter((d) => storableText(d.tenant) && storableText(d.deltaId));
    const result = await this.sql.query<{
      marked: boolean;
      tenant: string | null;
      entity: string | null;
      record_key: string | null;
      version: string | number | null;
      deleted: boolean | null;
      doc: Record<string, unknown> | null;
      outcome: OutcomeColumns | null;
    }>(
      `select mark.marked, found.* from (select exists (select 1 from state_store_marks where process = $6) as marked) mark
       left join (
         select s.tenant, s.entity, s.record_key, s.version, s.deleted, s.doc, null::jsonb as outcome
           from unnest($1::text[], $2::text[], $3::text[]) as r(tenant, entity, record_key)
           cross join lateral (
             select * from record_state s where s.tenant = r.tenant and s.entity = r.entity and s.record_key = r.record_key limit 1) s
         union all
         select o.tenant, null, null, null, null, null, to_jsonb(o)
           from unnest($4::text[], $5::text[]) as r(tenant, delta_id)
           cross join lateral (select * from delta_outcomes o where o.delta_id = r.delta_id and o.tenant = r.tenant limit 1) o
       ) found on true`,
      [
        arrayLiteral(ids.map((id) => id.tenant)),
        arrayLiteral(ids.map((id) => id.entity)),
        arrayLiteral(ids.map((id) => id.key)),
        arrayLiteral(deltas.map((d) => d.tenant)),
        arrayLiteral(deltas.map((d) => d.deltaId)),
        this.#process,
      ],
      PREPARED,
    );
    const states = new Map<string, RecordState>();
    const outcomes: { tenant: string; outcome: DeltaOutcomeRow }[] = [];
    for (const row of result.rows) {
      if (row.tenant === null) continue;
      if (row.outcome !== null) outcomes.push({ tenant: row.tenant, outcome: outcomeRowOf(row.outcome) });
      else
        states.set(recordIdKey({ tenant: row.tenant, entity: row.entity ?? '', key: row.record_key ?? '' }), {
          version: Number(row.version),
          deleted: row.deleted === true,
          doc: row.doc,
        });
    }
    return { states, outcomes, markLost: result.rows[0]?.marked !== true };
  }

  /** One statement: atomic without a transaction of its own; committed without waiting for the WAL flush (see above). */
  async recordVerdicts(verdicts: readonly StoredVerdict[]): Promise<void> {
    if (verdicts.length > 0) await writeVerdicts(this.sql, verdicts, 'without-flush');
  }

  /** A statement of its own: the pipeline's concurrent state writes would otherwise all wait on the same checkpoint rows. */
  async storeCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void> {
    if (checkpoints.length > 0) await writeCheckpoints(this.sql, checkpoints);
  }

  async lowerCheckpoints(checkpoints: readonly StateCheckpoint[]): Promise<void> {
    if (checkpoints.length === 0) return;
    await this.sql.query(
      `update state_checkpoints c set next_offset = r.next_offset
         from jsonb_to_recordset($1::jsonb) as r(topic text, partition integer, next_offset bigint)
        where c.topic = r.topic and c.partition = r.partition and c.next_offset > r.next_offset`,
      [JSON.stringify(checkpoints.map((c) => ({ topic: c.topic, partition: c.partition, next_offset: c.nextOffset })))],
    );
  }

  async applyEvents(events: readonly PersistedEvent[], partition: StateCheckpoint): Promise<void> {
    const verdicts = verdictsOfEvents(events, partition);
    await this.sql.transaction(async (tx) => {
      if (verdicts.length > 0) await writeVerdicts(tx, verdicts, 'flushed');
      await writeCheckpoints(tx, [partition]);
    });
  }

  async checkpoint(topic: string, partition: number): Promise<string | undefined> {
    const result = await this.sql.query<{ next_offset: string | number }>('select next_offset from state_checkpoints where topic = $1 and partition = $2', [
      topic,
      partition,
    ]);
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
    PREPARED,
  );
}

/**
 * Writes verdicts (inside the caller's transaction, if any): the newest state per record, and every delta's outcome.
 * `without-flush` sets synchronous_commit off for the transaction from inside the statement (a `set local` would cost
 * two more round trips: begin and set), so a lone write does not wait for PostgreSQL's WAL fsync.
 */
async function writeVerdicts(tx: SqlExecutor, verdicts: readonly StoredVerdict[], commit: 'flushed' | 'without-flush'): Promise<void> {
  const newest = new Map<
    string,
    { tenant: string; entity: string; record_key: string; version: number; deleted: boolean; doc: Record<string, unknown> | null }
  >();
  for (const v of verdicts) {
    if (v.status !== 'accepted') continue;
    const key = recordIdKey(v.id);
    if ((newest.get(key)?.version ?? 0) < v.state.version) {
      newest.set(key, { tenant: v.id.tenant, entity: v.id.entity, record_key: v.id.key, version: v.state.version, deleted: v.state.deleted, doc: v.state.doc });
    }
  }
  // A refusal of a delta whose id or tenant holds U+0000 is not stored: no row could hold it (and no request can
  // name it); the rejections and outcomes topics carry it. A refusal's problem quotes what the delta held, so a
  // U+0000 there is stored as U+FFFD (the rejection on the log keeps the delta as it was).
  const storable = verdicts.filter((v) => v.status === 'accepted' || (storableText(v.tenant) && storableText(v.outcome.deltaId)));
  const outcomes = storable.map((v) =>
    v.status === 'accepted'
      ? {
          delta_id: v.outcome.deltaId,
          tenant: v.id.tenant,
          status: 'accepted',
          event_id: v.outcome.eventId,
          version: v.outcome.version,
          topic: v.outcome.topic,
          partition: v.outcome.partition,
          log_offset: v.outcome.offset,
          problem: null,
        }
      : {
          delta_id: v.outcome.deltaId,
          tenant: v.tenant,
          status: 'refused',
          event_id: null,
          version: null,
          topic: null,
          partition: null,
          log_offset: null,
          problem: withNulReplaced(v.outcome.problem),
        },
  );
  // One statement, so one round trip and atomic without a transaction of its own: the states only move forward.
  // Every stored verdict has an outcome row, so the cross join with the setting's one-row subquery runs it whenever
  // anything is stored.
  const withoutFlush = commit === 'without-flush' ? `cross join (select set_config('synchronous_commit', 'off', true)) as commit_mode` : '';
  await tx.query(
    `with states as (
       insert into record_state (tenant, entity, record_key, version, deleted, doc)
       select tenant, entity, record_key, version, deleted, doc
         from jsonb_to_recordset($1::jsonb) as r(tenant text, entity text, record_key text, version bigint, deleted boolean, doc jsonb)
       on conflict (tenant, entity, record_key) do update
         set version = excluded.version, deleted = excluded.deleted, doc = excluded.doc, updated_at = now()
       where record_state.version < excluded.version)
     insert into delta_outcomes (${OUTCOME_COLUMNS})
     select ${OUTCOME_COLUMNS}
       from jsonb_to_recordset($2::jsonb) as r(delta_id text, tenant text, status text, event_id text, version bigint, topic text, partition integer, log_offset text, problem jsonb)
       ${withoutFlush}
     on conflict (tenant, delta_id) do nothing`,
    [JSON.stringify([...newest.values()]), JSON.stringify(outcomes)],
    PREPARED,
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
