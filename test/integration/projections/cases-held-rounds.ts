/**
 * A projection's rounds on partitions it applied last (held-round.ts): one statement each, nothing applied twice
 * when the checkpoint moved behind its back, atomic when the statement fails or the answer is lost.
 */
import { readCheckpoint } from '../../../projections/postgres/checkpoint-store';
import type { SqlClient } from '../../../src/store/sql-client';
import type { EntityConfig } from '../../../src/tenant';
import type { ProjectionContext } from './projection-context';
import { accountConfig, asNumber, batchOf, configSource, entityEvent, faultySql, uniqueEntity } from './projection-fixtures';

/** The suite's client, recording the statements it is asked to run: outside a transaction, and inside one. */
function recordingSql(sql: SqlClient): { client: SqlClient; alone: string[]; inTransactions: string[] } {
  const alone: string[] = [];
  const inTransactions: string[] = [];
  const client: SqlClient = {
    query: (text, values, options) => {
      alone.push(text);
      return sql.query(text, values, options);
    },
    transaction: (work) =>
      sql.transaction((tx) =>
        work({
          query: (text, values, options) => {
            inTransactions.push(text);
            return tx.query(text, values, options);
          },
        }),
      ),
    close: () => sql.close(),
  };
  return { client, alone, inTransactions };
}

export function heldRoundCases({ sql, projectionOf, rows, rowOf }: ProjectionContext): void {
  const create = (config: EntityConfig, key: string, name: string) =>
    entityEvent(config, { operation: 'create', key, version: 1, payload: { accountId: key, name } });
  const update = (config: EntityConfig, key: string, version: number, name: string) =>
    entityEvent(config, { operation: 'update', key, version, payload: { accountId: key, name } });

  test('the first round on a partition is claimed; the next ones are one statement each, with the same effect', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('held')));
    const config = configs[0] as EntityConfig;
    const recorded = recordingSql(sql());
    const projection = projectionOf(entities, recorded.client);
    await projection.tableFor(config);
    await projection.apply(batchOf(config, 0, [create(config, 'a', 'A1'), create(config, 'b', 'B1')]));
    expect(recorded.inTransactions.length).toBeGreaterThanOrEqual(3); // claim, upsert, advance
    recorded.alone.length = 0;
    recorded.inTransactions.length = 0;

    const second = await projection.apply(
      batchOf(config, 2, [update(config, 'a', 2, 'A2'), entityEvent(config, { operation: 'delete', key: 'b', version: 2 })]),
    );
    expect(recorded).toMatchObject({ alone: [expect.stringContaining('projection_checkpoints')], inTransactions: [] });
    expect(second).toMatchObject({ checkpointBefore: '2', checkpointAfter: '4', appliedOffsets: ['2', '3'], upserted: 1, deleted: 1 });
    expect((await rows(config)).map((r) => [r.accountId, r.name, asNumber(r._version)])).toEqual([['a', 'A2', 2]]);
    expect(await readCheckpoint(sql(), { projector: projection.projector, topic: config.persistence.topic, partition: 0 })).toBe(4n);

    // A batch redelivered from below the checkpoint: its applied records are skipped in the one statement too.
    const again = await projection.apply(
      batchOf(config, 3, [entityEvent(config, { operation: 'delete', key: 'b', version: 2 }), update(config, 'a', 3, 'A3')]),
    );
    expect(again).toMatchObject({ checkpointBefore: '4', checkpointAfter: '5', alreadyApplied: 1, appliedOffsets: ['4'], upserted: 1, deleted: 0 });
    expect(recorded.inTransactions).toEqual([]);
  });

  test('a checkpoint another member moved meanwhile: the round is claimed instead, and nothing is applied twice', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('moved')));
    const config = configs[0] as EntityConfig;
    const first = projectionOf(entities);
    await first.apply(batchOf(config, 0, [create(config, 'a', 'A1'), create(config, 'b', 'B1')]));
    // Another member under the same checkpoint name, during a rebalance, applies further.
    const other = projectionOf(entities, sql(), first.projector);
    await other.apply(batchOf(config, 0, [create(config, 'a', 'A1'), create(config, 'b', 'B1'), update(config, 'a', 2, 'A2'), update(config, 'b', 2, 'B2')]));
    // The first member's next batch starts where it left off (offset 2): offsets 2 and 3 were applied by the other.
    const report = await first.apply(batchOf(config, 2, [update(config, 'a', 2, 'A2'), update(config, 'b', 2, 'B2'), update(config, 'a', 3, 'A3')]));
    expect(report).toMatchObject({ checkpointBefore: '4', checkpointAfter: '5', alreadyApplied: 2, appliedOffsets: ['4'], upserted: 1 });
    expect((await rows(config)).map((r) => [r.accountId, r.name, asNumber(r._version)])).toEqual([
      ['a', 'A3', 3],
      ['b', 'B2', 2],
    ]);
  });

  test('a held round whose answer is lost after its commit: the batch comes again and takes effect once', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('lost')));
    const config = configs[0] as EntityConfig;
    let lose = false;
    const client = faultySql(sql(), { afterQuery: () => (lose ? ((lose = false), new Error('answer lost')) : undefined) });
    const projection = projectionOf(entities, client);
    await projection.tableFor(config);
    await projection.apply(batchOf(config, 0, [create(config, 'c', 'C1')]));
    lose = true;
    const batch = batchOf(config, 1, [update(config, 'c', 2, 'C2'), update(config, 'c', 3, 'C3')]);
    await expect(projection.apply(batch)).rejects.toThrow('answer lost');
    const redelivered = await projection.apply(batch);
    expect(redelivered).toMatchObject({ checkpointBefore: '3', checkpointAfter: '3', appliedOffsets: [], alreadyApplied: 2 });
    expect(await rowOf(config, 'c')).toMatchObject({ name: 'C3' });
  });
}
