/**
 * `postgres.connections`, `postgres.projectionConnections` and `postgres.stateConnections` bound what one instance
 * holds open on a real PostgreSQL: more queries in flight than connections wait for one, and none opens another.
 */
import { Client } from 'pg';
import { openStore, type Store } from '../../../src/composition/store';
import { loadConfig } from '../../../src/config';
import { silentLogger } from '../../../src/logger';
import type { SqlClient } from '../../../src/store/sql-client';
import { createFreshDatabase, type FreshDatabase } from '../../support/postgres';

const IN_FLIGHT = 8;

describe("the store's pool sizes", () => {
  let database: FreshDatabase;
  let store: Store;
  let projections: SqlClient;
  let states: SqlClient;
  let observer: Client;

  beforeAll(async () => {
    database = await createFreshDatabase('pool_sizes');
    const env = { DELTABROKER_POSTGRES_CONNECTIONS: '4', DELTABROKER_POSTGRES_PROJECTION_CONNECTIONS: '2', DELTABROKER_POSTGRES_STATE_CONNECTIONS: '3' };
    store = await openStore(loadConfig(env, { databaseUrl: database.url }), silentLogger());
    projections = await store.openProjectionClient();
    states = await store.openStateClient();
    observer = new Client({ connectionString: database.url });
    await observer.connect();
  });
  afterAll(async () => {
    await observer?.end();
    await projections?.close();
    await states?.close();
    await store?.sql.close();
    await database?.drop();
  });

  /** The most backends seen running `tag`'s sleeps while IN_FLIGHT of them are sent at once; all of them must finish. */
  const mostAtOnce = async (sql: SqlClient, tag: string): Promise<number> => {
    let most = 0;
    let running = true;
    const sampling = (async () => {
      while (running) {
        const { rows } = await observer.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query like $1",
          [`%${tag}%`],
        );
        most = Math.max(most, rows[0]?.n ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) => sql.query<{ i: number }>(`select pg_sleep(0.2), $1::int as i /* ${tag} */`, [i])),
    );
    running = false;
    await sampling;
    expect(answers.map((a) => a.rows[0]?.i)).toEqual(Array.from({ length: IN_FLIGHT }, (_, i) => i));
    return most;
  };

  test("the service's own pool holds postgres.connections", async () => {
    expect(await mostAtOnce(store.sql, 'main_pool_probe')).toBe(4);
  });

  test("the projectors' pool holds postgres.projectionConnections", async () => {
    expect(await mostAtOnce(projections, 'projection_pool_probe')).toBe(2);
  });

  test("the record state store's pool holds postgres.stateConnections", async () => {
    expect(await mostAtOnce(states, 'state_pool_probe')).toBe(3);
  });
});
