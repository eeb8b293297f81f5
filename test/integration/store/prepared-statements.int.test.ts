/**
 * Statements run with `prepare: true` on a real PostgreSQL: the same answers as unprepared ones, also after the
 * table under them was rebuilt with other column types (as a replay does), and beyond the bound on names.
 */
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';

const PREPARED = { prepare: true } as const;

describe('prepared statements (pg adapter)', () => {
  let store: ScratchSql;

  beforeAll(async () => {
    store = await scratchPostgres('prepared');
    await store.sql.query('create table things (id int primary key, v text)');
    await store.sql.query(`insert into things select i, 'v' || i from generate_series(1, 50) as i`);
  });
  afterAll(() => store.close());

  const byId = 'select id, v from things where id = $1::int';

  test('answer as unprepared statements do, on every connection of the pool, with other values each time', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => 1 + (i % 50));
    const prepared = await Promise.all(ids.map((id) => store.sql.query(byId, [id], PREPARED)));
    const plain = await Promise.all(ids.map((id) => store.sql.query(byId, [id])));
    expect(prepared.map((r) => r.rows)).toEqual(plain.map((r) => r.rows));
    expect(prepared.map((r) => r.rows[0])).toEqual(ids.map((id) => ({ id, v: `v${id}` })));
  });

  test('a table rebuilt with other column types under a prepared statement is read as it is now', async () => {
    await Promise.all(Array.from({ length: 30 }, () => store.sql.query(byId, [7], PREPARED)));
    await store.sql.transaction(async (tx) => {
      await tx.query('drop table things');
      await tx.query('create table things (id int primary key, v bigint)');
      await tx.query('insert into things select i, i * 1000 from generate_series(1, 50) as i');
    });
    const after = await Promise.all(Array.from({ length: 30 }, () => store.sql.query<{ id: number; v: string }>(byId, [7], PREPARED)));
    expect(after.map((r) => r.rows)).toEqual(Array.from({ length: 30 }, () => [{ id: 7, v: '7000' }]));
  });

  test('past the bound on prepared names, statements still answer', async () => {
    const answers = await Promise.all(Array.from({ length: 260 }, (_, i) => store.sql.query<{ n: number }>(`select $1::int + ${i} as n`, [1], PREPARED)));
    expect(answers.map((r) => r.rows[0]?.n)).toEqual(Array.from({ length: 260 }, (_, i) => 1 + i));
  });
});
