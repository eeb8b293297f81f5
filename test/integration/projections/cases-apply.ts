/** Applying batches: typed columns, merges, folding, one transaction per batch, checkpoints across redelivery and crashes. */
import { qualifiedTable } from '../../support/entities';
import { readCheckpoint } from '../../../projections/postgres/checkpoint-store';
import type { EntityEvent } from '../../../src/log';
import type { EntityConfig } from '../../../src/tenant';
import type { ProjectionContext, Row } from './projection-context';
import { accountConfig, asNumber, batchOf, configSource, entityEvent, faultySql, uniqueEntity } from './projection-fixtures';

export function applyCases({ sql, projectionOf, rows, rowOf }: ProjectionContext): void {
  test('create, update and delete project with typed columns; the checkpoint moves with the rows', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('crud')));
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    const a1 = entityEvent(config, {
      operation: 'create',
      key: 'a',
      version: 1,
      payload: { accountId: 'a', name: 'Alpha', mcc: 5411, score: 2.5, active: true, openedAt: '2026-01-02T03:04:05Z', address: { city: 'Lyon' } },
    });
    const b1 = entityEvent(config, { operation: 'create', key: 'b', version: 1, payload: { accountId: 'b', name: 'Beta' } });
    const first = await projection.apply(batchOf(config, 0, [a1, b1]));
    expect(first).toMatchObject({ checkpointBefore: '0', checkpointAfter: '2', appliedOffsets: ['0', '1'], alreadyApplied: 0, upserted: 2, deleted: 0 });

    const a2 = entityEvent(config, { operation: 'update', key: 'a', version: 2, payload: { accountId: 'a', mcc: 7995 } });
    const b2 = entityEvent(config, { operation: 'delete', key: 'b', version: 2 });
    const second = await projection.apply(batchOf(config, 2, [a2, b2]));
    expect(second).toMatchObject({ checkpointBefore: '2', checkpointAfter: '4', upserted: 1, deleted: 1 });

    const all = await rows(config);
    expect(all).toHaveLength(1);
    const a = all[0] as Row;
    expect(a).toMatchObject({
      accountId: 'a',
      name: 'Alpha',
      score: 2.5,
      active: true,
      address: { city: 'Lyon' },
      _event_id: a2.eventId,
      _position: `${config.persistence.topic}/0/2`,
    });
    expect(asNumber(a.mcc)).toBe(7995);
    expect(asNumber(a._version)).toBe(2);
    expect(new Date(a.openedAt as string | Date).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(new Date(a._updated_at as string | Date).getTime()).toBe(a2.recordedAt);
    expect(a._doc).toEqual({ accountId: 'a', name: 'Alpha', mcc: 7995, score: 2.5, active: true, openedAt: '2026-01-02T03:04:05Z', address: { city: 'Lyon' } });
    const checkpoint = await readCheckpoint(sql(), { projector: projection.projector, topic: config.persistence.topic, partition: 0 });
    expect(checkpoint).toBe(4n);
  });

  test("a round applies several partitions' batches in one transaction, each against its own checkpoint", async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('round')));
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    const ev = (key: string, version: number) =>
      entityEvent(
        config,
        version === 1
          ? { operation: 'create', key, version, payload: { accountId: key, name: `${key}${version}` } }
          : { operation: 'update', key, version, payload: { accountId: key, name: `${key}${version}` } },
      );
    await projection.apply(batchOf(config, 0, [ev('p0', 1)], 0));
    // Partition 0's batch is redelivered from offset 0 (its first record applied before); partition 2 is new.
    const reports = await projection.applyRound([batchOf(config, 0, [ev('p0', 1), ev('p0', 2)], 0), batchOf(config, 0, [ev('p2', 1)], 2)]);
    expect(reports.map((r) => [r.partition, r.checkpointBefore, r.checkpointAfter, r.alreadyApplied, r.appliedOffsets])).toEqual([
      [0, '1', '2', 1, ['1']],
      [2, '0', '1', 0, ['0']],
    ]);
    expect((await rowOf(config, 'p0'))?.name).toBe('p02');
    expect((await rowOf(config, 'p2'))?.name).toBe('p21');
    const checkpoint = (partition: number) => readCheckpoint(sql(), { projector: projection.projector, topic: config.persistence.topic, partition });
    expect([await checkpoint(0), await checkpoint(2)]).toEqual([2n, 1n]);
  });

  test('an update merges into the stored document: absent fields keep their value, null clears one', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('merge')));
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    await projection.apply(
      batchOf(config, 0, [
        entityEvent(config, {
          operation: 'create',
          key: 'm',
          version: 1,
          payload: { accountId: 'm', name: 'Kept', mcc: 1, active: false, address: { city: 'Oslo' } },
        }),
      ]),
    );
    // What the permission filter leaves of a writer's update: no name, an explicit null for mcc.
    await projection.apply(
      batchOf(config, 1, [entityEvent(config, { operation: 'update', key: 'm', version: 2, payload: { accountId: 'm', mcc: null, active: true } })]),
    );
    const row = (await rowOf(config, 'm')) as Row;
    expect(row).toMatchObject({ name: 'Kept', mcc: null, active: true, address: { city: 'Oslo' } });
    expect(row._doc).toEqual({ accountId: 'm', name: 'Kept', mcc: null, active: true, address: { city: 'Oslo' } });
  });

  test('events of one record in one batch fold to what applying them one by one gives', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('fold')));
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    await projection.apply(
      batchOf(config, 0, [entityEvent(config, { operation: 'create', key: 'u', version: 1, payload: { accountId: 'u', name: 'Stored', mcc: 1 } })]),
    );
    const events = [
      entityEvent(config, { operation: 'create', key: 'x', version: 1, payload: { accountId: 'x', name: 'First', mcc: 1 } }),
      entityEvent(config, { operation: 'update', key: 'x', version: 2, payload: { accountId: 'x', name: 'First', mcc: 2 } }),
      entityEvent(config, { operation: 'delete', key: 'x', version: 3 }),
      entityEvent(config, { operation: 'create', key: 'x', version: 4, payload: { accountId: 'x', score: 9.5 } }),
      // Each event carries the record's whole state, as the pipeline writes it.
      entityEvent(config, { operation: 'update', key: 'u', version: 2, payload: { accountId: 'u', name: 'Stored', mcc: 5 } }),
      entityEvent(config, { operation: 'update', key: 'u', version: 3, payload: { accountId: 'u', name: 'Stored', mcc: 5, score: 1.5 } }),
      entityEvent(config, { operation: 'create', key: 'y', version: 1, payload: { accountId: 'y', name: 'Gone' } }),
      entityEvent(config, { operation: 'delete', key: 'y', version: 2 }),
    ];
    const report = await projection.apply(batchOf(config, 1, events));
    expect(report.appliedOffsets).toHaveLength(events.length);
    const all = await rows(config);
    expect(all.map((r) => [r.accountId, asNumber(r._version), r._doc])).toEqual([
      ['u', 3, { accountId: 'u', name: 'Stored', mcc: 5, score: 1.5 }],
      ['x', 4, { accountId: 'x', score: 9.5 }],
    ]);
    expect(all[1]).toMatchObject({ name: null, mcc: null, score: 9.5, _position: `${config.persistence.topic}/0/4` });
  });

  test("a record's newest event in a batch is its row: the payloads before it are not read, and one that cannot be projected is left out", async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('newest')));
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    const unreadable = (event: EntityEvent): EntityEvent => ({ ...event, payload: '{not json' });
    const events = [
      entityEvent(config, { operation: 'create', key: 'n', version: 1, payload: { accountId: 'n', name: 'One' } }),
      unreadable(entityEvent(config, { operation: 'update', key: 'n', version: 2 })),
      entityEvent(config, { operation: 'update', key: 'n', version: 3, payload: { accountId: 'n', name: 'Three', mcc: 3 } }),
      entityEvent(config, { operation: 'create', key: 'o', version: 1, payload: { accountId: 'o', name: 'Kept' } }),
      unreadable(entityEvent(config, { operation: 'update', key: 'o', version: 2 })),
    ];
    const report = await projection.apply(batchOf(config, 0, events));
    // n's unreadable update is superseded by its newest event; o's newest is passed over, its create applied.
    expect(report).toMatchObject({ unprojectable: 1, passedOver: [{ offset: '4', reason: 'payload-not-an-object' }] });
    expect(report.appliedOffsets).toEqual(['0', '1', '2', '3']);
    expect((await rows(config)).map((r) => [r.accountId, asNumber(r._version), r._doc])).toEqual([
      ['n', 3, { accountId: 'n', name: 'Three', mcc: 3 }],
      ['o', 1, { accountId: 'o', name: 'Kept' }],
    ]);
  });

  test('one transaction per batch: a failing statement leaves neither rows nor checkpoint behind', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('atomic')));
    const config = configs[0] as EntityConfig;
    let failDeletes = true;
    const client = faultySql(sql(), {
      beforeStatement: (text) => (failDeletes && text.includes('delete from') ? new Error('injected statement failure') : undefined),
    });
    const projection = projectionOf(entities, client);
    await projection.apply(batchOf(config, 0, [entityEvent(config, { operation: 'create', key: 'd', version: 1, payload: { accountId: 'd' } })]));
    const batch = batchOf(config, 1, [
      entityEvent(config, { operation: 'create', key: 'n', version: 1, payload: { accountId: 'n', name: 'New' } }),
      entityEvent(config, { operation: 'delete', key: 'd', version: 2 }),
    ]);
    await expect(projection.apply(batch)).rejects.toThrow('injected statement failure');
    expect((await rows(config)).map((r) => r.accountId)).toEqual(['d']);
    const projector = projection.projector;
    expect(await readCheckpoint(sql(), { projector, topic: config.persistence.topic, partition: 0 })).toBe(1n);

    failDeletes = false;
    const retried = await projection.apply(batch);
    expect(retried).toMatchObject({ checkpointBefore: '1', checkpointAfter: '3', appliedOffsets: ['1', '2'] });
    expect((await rows(config)).map((r) => r.accountId)).toEqual(['n']);
  });

  test('a redelivered batch is skipped by its checkpoint, even where versions would let it through', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('redeliver')));
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    const events = [0, 1, 2, 3, 4].map((i) =>
      entityEvent(config, { operation: i === 0 ? 'create' : 'update', key: 'r', version: i + 1, payload: { accountId: 'r', mcc: i } }),
    );
    await projection.apply(batchOf(config, 0, events.slice(0, 3)));
    // Make a second application visible: only the checkpoint can keep these events out now.
    await sql().query(`update ${qualifiedTable(config)} set name = 'tampered', "_version" = 0`);

    const again = await projection.apply(batchOf(config, 0, events.slice(0, 3)));
    expect(again).toMatchObject({ checkpointBefore: '3', checkpointAfter: '3', appliedOffsets: [], alreadyApplied: 3, upserted: 0 });
    expect(await rowOf(config, 'r')).toMatchObject({ name: 'tampered' });

    const overlapping = await projection.apply(batchOf(config, 1, events.slice(1)));
    expect(overlapping).toMatchObject({ checkpointBefore: '3', checkpointAfter: '5', appliedOffsets: ['3', '4'], alreadyApplied: 2 });
    const row = (await rowOf(config, 'r')) as Row;
    expect(asNumber(row._version)).toBe(5);
    expect(asNumber(row.mcc)).toBe(4);
  });

  test('a crash after the commit, before the log learns of it: the batch comes again and takes effect once', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('crash')));
    const config = configs[0] as EntityConfig;
    let crashes = 0;
    const client = faultySql(sql(), { afterCommit: () => (crashes-- > 0 ? new Error('crashed after commit') : undefined) });
    const projection = projectionOf(entities, client);
    await projection.tableFor(config);
    crashes = 1;
    const batch = batchOf(config, 0, [
      entityEvent(config, { operation: 'create', key: 'c', version: 1, payload: { accountId: 'c', mcc: 1 } }),
      entityEvent(config, { operation: 'update', key: 'c', version: 2, payload: { accountId: 'c', mcc: 2 } }),
    ]);
    await expect(projection.apply(batch)).rejects.toThrow('crashed after commit');
    const redelivered = await projection.apply(batch);
    expect(redelivered).toMatchObject({ appliedOffsets: [], alreadyApplied: 2, checkpointAfter: '2' });
    const row = (await rowOf(config, 'c')) as Row;
    expect(asNumber(row._version)).toBe(2);
    expect(asNumber(row.mcc)).toBe(2);
  });

  test('a replay that overlaps the stored rows (no checkpoint to stop it) leaves them exactly as they were', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('overlap')));
    const config = configs[0] as EntityConfig;
    const events = [
      entityEvent(config, { operation: 'create', key: 'o', version: 1, payload: { accountId: 'o', name: 'one', mcc: 1 } }),
      entityEvent(config, { operation: 'update', key: 'o', version: 2, payload: { accountId: 'o', name: 'two' } }),
      entityEvent(config, { operation: 'update', key: 'o', version: 3, payload: { accountId: 'o', mcc: 3, score: 0.5 } }),
      entityEvent(config, { operation: 'create', key: 'p', version: 1, payload: { accountId: 'p', name: 'pea' } }),
      entityEvent(config, { operation: 'delete', key: 'p', version: 2 }),
      entityEvent(config, { operation: 'update', key: 'o', version: 4, payload: { accountId: 'o', name: 'four' } }),
    ];
    const live = projectionOf(entities);
    await live.apply(batchOf(config, 0, events.slice(0, 3)));
    await live.apply(batchOf(config, 3, events.slice(3)));
    const before = await rows(config);

    // A second projection (its own checkpoints) reads the partition again from several starting points.
    for (const from of [1, 2, 5, 0]) {
      await projectionOf(entities).apply(batchOf(config, from, events.slice(from)));
      expect(await rows(config)).toEqual(before);
    }
    expect(before.map((r) => [r.accountId, asNumber(r._version), r._doc])).toEqual([['o', 4, { accountId: 'o', name: 'four', mcc: 3, score: 0.5 }]]);
  });
}
