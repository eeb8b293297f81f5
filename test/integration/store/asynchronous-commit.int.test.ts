/**
 * The store's clients on a real PostgreSQL: the service's own commits wait for the WAL flush, the projectors'
 * client (`openProjectionClient`) commits asynchronously on every connection of its pool, and what it commits is
 * what the other client reads; the record state store's client (`openStateClient`) waits for the flush and plans
 * every statement generically, which the service's own client does not.
 */
import { openStore, type Store } from '../../../src/composition/store';
import { loadConfig } from '../../../src/config';
import { silentLogger } from '../../../src/logger';
import type { SqlClient } from '../../../src/store/sql-client';
import { createFreshDatabase, type FreshDatabase } from '../../support/postgres';

describe("the store's clients: asynchronous commit for the projectors only, generic plans for the record states", () => {
  let database: FreshDatabase;
  let store: Store;
  let projections: SqlClient;
  let states: SqlClient;

  beforeAll(async () => {
    database = await createFreshDatabase('async_commit');
    store = await openStore(loadConfig({}, { databaseUrl: database.url }), silentLogger());
    projections = await store.openProjectionClient();
    states = await store.openStateClient();
  });
  afterAll(async () => {
    await projections?.close();
    await states?.close();
    await store?.sql.close();
    await database?.drop();
  });

  const settingOf = async (sql: SqlClient, setting = 'synchronous_commit', connections = 4): Promise<string[]> => {
    // In flight side by side, so each answer comes from another connection of the pool.
    const answers = await Promise.all(
      Array.from({ length: connections }, () => sql.query<{ value: string }>('select pg_sleep(0.05), current_setting($1) as value', [setting])),
    );
    return answers.map((a) => a.rows[0]?.value ?? '?');
  };

  test("the projectors' connections commit without waiting for the flush; the store's own and the states' wait", async () => {
    expect(await settingOf(projections)).toEqual(['off', 'off', 'off', 'off']);
    expect(await settingOf(store.sql)).toEqual(['on', 'on', 'on', 'on']);
    expect(await settingOf(states, 'synchronous_commit', 3)).toEqual(['on', 'on', 'on']);
  });

  test("the record states' connections plan every statement generically; the store's own choose per call", async () => {
    expect(await settingOf(states, 'plan_cache_mode', 3)).toEqual(['force_generic_plan', 'force_generic_plan', 'force_generic_plan']);
    expect(await settingOf(store.sql, 'plan_cache_mode')).toEqual(['auto', 'auto', 'auto', 'auto']);
  });

  test('what the projection client commits, in a transaction or one statement, the store reads', async () => {
    await store.sql.query('create table projected (id int primary key, v text not null)');
    await projections.transaction(async (tx) => {
      await tx.query('insert into projected values (1, $1)', ['in a transaction']);
      await tx.query('insert into projected values (2, $1)', ['beside it']);
    });
    await projections.query('insert into projected values (3, $1)', ['one statement'], { prepare: true });
    const { rows } = await store.sql.query<{ id: number; v: string }>('select id, v from projected order by id');
    expect(rows).toEqual([
      { id: 1, v: 'in a transaction' },
      { id: 2, v: 'beside it' },
      { id: 3, v: 'one statement' },
    ]);
  });
});
