/**
 * PostgreSQL losing committed transactions under the projectors (point-in-time recovery, failover to a replica
 * that trailed): the projection rows and their checkpoints roll back together, while the consumer groups' offsets,
 * kept in the broker, stay ahead. The table and search projectors must catch up from their checkpoints, whether
 * they restart on the rolled-back database or were running when it happened, and never pass over what it lost.
 *
 * The rollback is what PostgreSQL presents after one: the rows the lost transactions created are gone and the
 * checkpoints are back where they were when the earlier rounds committed.
 */
import { physicalNamesOf, type EntityConfig } from '../../../src/tenant';
import { DEFAULT_SEARCH_SCHEMA } from '../../../src/search/postgres/postgres-search-index';
import { tableOf } from '../../../src/search/postgres/schema';
import { qualifiedTable } from '../../support/entities';
import { scratchPostgres } from '../../support/scratch-sql';
import { accountConfig, lastPerPartition, openReplayHarness, uniqueName, type EventSpec, type ReplayHarness } from '../replay/replay-harness';

describe('projectors after PostgreSQL lost committed transactions', () => {
  let h: ReplayHarness;

  beforeAll(async () => {
    const { sql, close } = await scratchPostgres('dbt_checkpoint_rollback');
    h = await openReplayHarness(sql, close);
  });
  afterAll(async () => h?.close());

  const creates = (keys: readonly string[]): EventSpec[] =>
    keys.map((key) => ({ operation: 'create', key, version: 1, payload: { accountId: key, name: `name of ${key}` } }));
  const keysFrom = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);

  /** The live projectors' checkpoints, to put back as a restore to this point would. */
  async function checkpoints(): Promise<{ projector: string; topic: string; partition: number; next_offset: string }[]> {
    const { rows } = await h.sql.query<{ projector: string; topic: string; partition: number; next_offset: string }>(
      'select projector, topic, partition, next_offset::text from projection_checkpoints where projector = any($1) order by 1, 2, 3',
      [[h.groups.postgres, h.groups.search]],
    );
    return rows;
  }

  /** The database as it was when `saved` was read: `lost` keys gone from table and index, checkpoints back. */
  async function rollBack(config: EntityConfig, saved: Awaited<ReturnType<typeof checkpoints>>, lost: readonly string[]): Promise<void> {
    await h.sql.transaction(async (tx) => {
      await tx.query(`delete from ${qualifiedTable(config)} where "accountId" = any($1)`, [lost]);
      await tx.query(`delete from ${tableOf(DEFAULT_SEARCH_SCHEMA, physicalNamesOf(config).index)} where id = any($1)`, [lost]);
      await tx.query('delete from projection_checkpoints where projector = any($1)', [[h.groups.postgres, h.groups.search]]);
      for (const c of saved)
        await tx.query('insert into projection_checkpoints (projector, topic, partition, next_offset) values ($1, $2, $3, $4)', [
          c.projector,
          c.topic,
          c.partition,
          c.next_offset,
        ]);
    });
  }

  /** Live projectors that applied two runs of creates: `kept`, then `lost`, with the checkpoints between them. */
  async function keptThenLost(): Promise<{ config: EntityConfig; kept: string[]; saved: Awaited<ReturnType<typeof checkpoints>>; lost: string[] }> {
    const config = h.put(accountConfig(uniqueName('acct')));
    await h.startLive();
    const kept = keysFrom('a', 12);
    await h.applied(lastPerPartition(await h.publish(config, creates(kept))));
    const saved = await checkpoints();
    const lost = keysFrom('b', 12);
    await h.applied(lastPerPartition(await h.publish(config, creates(lost))));
    return { config, kept, saved, lost };
  }

  const tableKeys = async (config: EntityConfig): Promise<string[]> =>
    (await h.sql.query<{ k: string }>(`select "accountId" as k from ${qualifiedTable(config)} order by 1`)).rows.map((r) => r.k);
  const indexKeys = async (config: EntityConfig): Promise<string[]> =>
    (await h.sql.query<{ k: string }>(`select id as k from ${tableOf(DEFAULT_SEARCH_SCHEMA, physicalNamesOf(config).index)} order by 1`)).rows.map((r) => r.k);

  test('restarted on the rolled-back database, both projectors apply again what it lost, from their checkpoints', async () => {
    const { config, kept, saved, lost } = await keptThenLost();
    await h.stopLive();

    await rollBack(config, saved, lost);
    expect(await tableKeys(config)).toEqual(kept);

    await h.startLive();
    const later = keysFrom('c', 3);
    await h.applied(lastPerPartition(await h.publish(config, creates(later))));
    const all = [...kept, ...lost, ...later].sort();
    expect(await tableKeys(config)).toEqual(all);
    expect(await indexKeys(config)).toEqual(all);
    await h.stopLive();
  });

  test('running while the database rolled back, both projectors read again from their checkpoints at their next round', async () => {
    const { config, kept, saved, lost } = await keptThenLost();

    await rollBack(config, saved, lost);
    // Enough records that each partition has one (keys spread by hash): each partition's next round finds its
    // checkpoint behind what it applied.
    const later = keysFrom('c', 40);
    await h.applied(lastPerPartition(await h.publish(config, creates(later))));
    const all = [...kept, ...lost, ...later].sort();
    expect(await tableKeys(config)).toEqual(all);
    expect(await indexKeys(config)).toEqual(all);
    await h.stopLive();
  });
});
