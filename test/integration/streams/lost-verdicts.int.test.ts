/**
 * The pipeline's verdicts are committed to PostgreSQL without waiting for the WAL flush, so a database crash may take
 * the last ones while their events are on the log. Here a database "loses" them as crash recovery would (the rows
 * written since the last flushed checkpoint, and the unlogged catch-up marks) while the pipeline runs: the next
 * delta on the record must be decided on the state the log holds, not on the gap.
 */
import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import { PostgresRecordStateStore } from '../../../src/store/record-states/postgres-record-states';
import { catchUpRecordState, restoreRecordState } from '../../../streams/state-restorer';
import { ada, startInProcessWritePath, writeCommand as write, type InProcessWritePath } from '../../support/in-process-write-path';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';

const TOPIC = 'acme.merchant_account.events';

describe('verdicts a database lost while the pipeline runs', () => {
  let store: ScratchSql;
  let writePath: InProcessWritePath;
  let catchUps = 0;

  beforeAll(async () => {
    store = await scratchPostgres('lost_verdicts');
    await migrate(store.sql, silentLogger());
    const states = new PostgresRecordStateStore(store.sql);
    writePath = await startInProcessWritePath(states, async ({ log, schemas, entities }) => {
      const logger = silentLogger();
      const { recorded } = await restoreRecordState({ log, schemas, entities, states, logger });
      return {
        recorded,
        catchUp: async () => {
          catchUps += 1;
          await catchUpRecordState({ log, schemas, entities, states, logger }, recorded);
        },
      };
    });
  }, 60_000);

  afterAll(async () => {
    await writePath?.stop();
    await store?.close();
  });

  const eventsOnLog = async (): Promise<number> => (await writePath.log.topicOffsets(TOPIC)).reduce((n, p) => n + Number(p.high), 0);

  test('the pipeline catches the store up before it decides on a record whose state was lost', async () => {
    await writePath.writes.write(ada, write({ deltaId: 'lost-1', payload: { merchantId: 'm-lost', name: 'Ada' } }));
    const second = await writePath.writes.write(ada, write({ operation: 'update', deltaId: 'lost-2', payload: { merchantId: 'm-lost', name: 'Ada L.' } }));
    expect(second).toMatchObject({ status: 'accepted', version: 2 });
    const caughtUpBefore = catchUps;
    const eventsBefore = await eventsOnLog();

    // What crash recovery takes: verdicts committed since the last flushed checkpoint, and every unlogged mark.
    await store.sql.query(`delete from record_state where record_key = 'm-lost'`);
    await store.sql.query(`delete from delta_outcomes where delta_id in ('lost-1', 'lost-2')`);
    await store.sql.query('delete from state_checkpoints');
    await store.sql.query('truncate state_store_marks');

    // Decided on the gap, this update would be refused: the record would not exist.
    const third = await writePath.writes.write(ada, write({ operation: 'update', deltaId: 'lost-3', payload: { merchantId: 'm-lost', name: 'Ada Lovelace' } }));
    expect(third).toMatchObject({ status: 'accepted', version: 3 });
    expect(catchUps).toBe(caughtUpBefore + 1);
    expect(await eventsOnLog()).toBe(eventsBefore + 1);
    const restored = await store.sql.query<{ version: string; doc: { name: string } }>(`select version, doc from record_state where record_key = 'm-lost'`);
    expect(restored.rows).toEqual([{ version: '3', doc: expect.objectContaining({ name: 'Ada Lovelace' }) }]);
    const outcomes = await store.sql.query<{ delta_id: string; version: string }>(
      `select delta_id, version from delta_outcomes where delta_id like 'lost-%' order by delta_id`,
    );
    expect(outcomes.rows.map((r) => [r.delta_id, Number(r.version)])).toEqual([
      ['lost-1', 1],
      ['lost-2', 2],
      ['lost-3', 3],
    ]);
  });

  test('while the mark stays, no batch catches up again', async () => {
    const before = catchUps;
    for (let i = 0; i < 5; i++) await writePath.writes.write(ada, write({ payload: { merchantId: `m-kept-${i}`, name: 'Ada' } }));
    expect(catchUps).toBe(before);
  });
});
