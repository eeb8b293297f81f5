/**
 * The table projection on one SQL backend, fed hand-made batches (no log): table shape, typed columns,
 * merges, deletes, per-batch transactions, checkpoints across redelivery and crashes, schema migration,
 * unprojectable events and injection-shaped input. Run against PostgreSQL and PGlite.
 */
import { AppliedPositions } from '../../../projections/postgres/applied-positions';
import { readCheckpoint } from '../../../projections/postgres/checkpoint-store';
import { TableProjection } from '../../../projections/postgres/table-projection';
import { migrateProjectionTable, projectionTableOf } from '../../../projections/postgres/table-schema';
import { silentLogger } from '../../../src/logger';
import { compileRql, decodeRow } from '../../../src/store/rql';
import { migrate } from '../../../src/store/migrator';
import type { SqlClient } from '../../../src/store/sql-client';
import { readableFields, type EntityConfig, type EntityConfigSource } from '../../../src/tenant';
import { accountConfig, asNumber, batchOf, configSource, entityEvent, faultySql, uniqueEntity } from './projection-fixtures';

export interface SqlBackend {
  sql: SqlClient;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

export function describeTableProjectionContract(name: string, open: () => Promise<SqlBackend>): void {
  describe(`table projection on ${name}`, () => {
    let backend: SqlBackend | undefined;
    const sql = (): SqlClient => {
      if (!backend) throw new Error('backend not open');
      return backend.sql;
    };
    const projectionOf = (entities: EntityConfigSource, client: SqlClient = sql()): TableProjection =>
      new TableProjection({ sql: client, entities, logger: silentLogger(), projector: uniqueEntity('projector') });
    const rows = async (config: EntityConfig): Promise<Row[]> =>
      (await sql().query<Row>(`select * from "${config.persistence.table}" order by "${config.key[0]}"`)).rows;
    const rowOf = async (config: EntityConfig, key: string): Promise<Row | undefined> =>
      (await sql().query<Row>(`select * from "${config.persistence.table}" where "${config.key[0]}" = $1`, [key])).rows[0];

    beforeAll(async () => {
      backend = await open();
      await migrate(backend.sql, silentLogger());
    });
    afterAll(async () => {
      await backend?.close();
    });

    test('the table has a typed column per field, the system columns, and the key as primary key', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('shape')));
      const config = configs[0] as EntityConfig;
      await projectionOf(entities).tableFor(config);
      const columns = await sql().query<{ name: string; type: string; notnull: boolean }>(
        `select attname as name, format_type(atttypid, atttypmod) as type, attnotnull as notnull from pg_attribute
          where attrelid = to_regclass($1) and attnum > 0 and not attisdropped order by attnum`,
        [`"${config.persistence.table}"`],
      );
      expect(columns.rows.map((c) => [c.name, c.type])).toEqual([
        ['accountId', 'text'],
        ['name', 'text'],
        ['mcc', 'bigint'],
        ['score', 'double precision'],
        ['active', 'boolean'],
        ['openedAt', 'timestamp with time zone'],
        ['address', 'jsonb'],
        ['_doc', 'jsonb'],
        ['_version', 'bigint'],
        ['_event_id', 'text'],
        ['_position', 'text'],
        ['_updated_at', 'timestamp with time zone'],
      ]);
      const pk = await sql().query<{ name: string }>(
        `select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = to_regclass($1) and i.indisprimary`,
        [`"${config.persistence.table}"`],
      );
      expect(pk.rows.map((r) => r.name)).toEqual(['accountId']);
    });

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
      expect(a).toMatchObject({ accountId: 'a', name: 'Alpha', score: 2.5, active: true, address: { city: 'Lyon' }, _event_id: a2.eventId, _position: `${config.persistence.topic}/0/2` });
      expect(asNumber(a.mcc)).toBe(7995);
      expect(asNumber(a._version)).toBe(2);
      expect(new Date(a.openedAt as string | Date).toISOString()).toBe('2026-01-02T03:04:05.000Z');
      expect(new Date(a._updated_at as string | Date).getTime()).toBe(a2.recordedAt);
      expect(a._doc).toEqual({ accountId: 'a', name: 'Alpha', mcc: 7995, score: 2.5, active: true, openedAt: '2026-01-02T03:04:05Z', address: { city: 'Lyon' } });
      const checkpoint = await readCheckpoint(sql(), { projector: projection.projector, topic: config.persistence.topic, partition: 0 });
      expect(checkpoint).toBe(4n);
    });

    test('an update merges into the stored document: absent fields keep their value, null clears one', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('merge')));
      const config = configs[0] as EntityConfig;
      const projection = projectionOf(entities);
      await projection.apply(batchOf(config, 0, [entityEvent(config, { operation: 'create', key: 'm', version: 1, payload: { accountId: 'm', name: 'Kept', mcc: 1, active: false, address: { city: 'Oslo' } } })]));
      // What the permission filter leaves of a writer's update: no name, an explicit null for mcc.
      await projection.apply(batchOf(config, 1, [entityEvent(config, { operation: 'update', key: 'm', version: 2, payload: { accountId: 'm', mcc: null, active: true } })]));
      const row = (await rowOf(config, 'm')) as Row;
      expect(row).toMatchObject({ name: 'Kept', mcc: null, active: true, address: { city: 'Oslo' } });
      expect(row._doc).toEqual({ accountId: 'm', name: 'Kept', mcc: null, active: true, address: { city: 'Oslo' } });
    });

    test('events of one record in one batch fold to what applying them one by one gives', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('fold')));
      const config = configs[0] as EntityConfig;
      const projection = projectionOf(entities);
      await projection.apply(batchOf(config, 0, [entityEvent(config, { operation: 'create', key: 'u', version: 1, payload: { accountId: 'u', name: 'Stored', mcc: 1 } })]));
      const events = [
        entityEvent(config, { operation: 'create', key: 'x', version: 1, payload: { accountId: 'x', name: 'First', mcc: 1 } }),
        entityEvent(config, { operation: 'update', key: 'x', version: 2, payload: { accountId: 'x', mcc: 2 } }),
        entityEvent(config, { operation: 'delete', key: 'x', version: 3 }),
        entityEvent(config, { operation: 'create', key: 'x', version: 4, payload: { accountId: 'x', score: 9.5 } }),
        entityEvent(config, { operation: 'update', key: 'u', version: 2, payload: { accountId: 'u', mcc: 5 } }),
        entityEvent(config, { operation: 'update', key: 'u', version: 3, payload: { accountId: 'u', score: 1.5 } }),
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

    test('one transaction per batch: a failing statement leaves neither rows nor checkpoint behind', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('atomic')));
      const config = configs[0] as EntityConfig;
      let failDeletes = true;
      const client = faultySql(sql(), { beforeStatement: (text) => (failDeletes && text.startsWith('delete from') ? new Error('injected statement failure') : undefined) });
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
      const events = [0, 1, 2, 3, 4].map((i) => entityEvent(config, { operation: i === 0 ? 'create' : 'update', key: 'r', version: i + 1, payload: { accountId: 'r', mcc: i } }));
      await projection.apply(batchOf(config, 0, events.slice(0, 3)));
      // Make a second application visible: only the checkpoint can keep these events out now.
      await sql().query(`update "${config.persistence.table}" set name = 'tampered', "_version" = 0`);

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

    test('composite and integer keys come from the payload or from the record key', async () => {
      const entity = uniqueEntity('composite');
      const { entities, configs } = configSource({
        tenant: 'acme',
        entity,
        key: ['region', 'seq'],
        fields: { region: { type: 'string' }, seq: { type: 'integer' }, label: { type: 'string' } },
        roles: {},
      });
      const config = configs[0] as EntityConfig;
      const projection = projectionOf(entities);
      await projection.apply(
        batchOf(config, 0, [
          entityEvent(config, { operation: 'create', key: 'eu:7', version: 1, payload: { region: 'eu', seq: 7, label: 'seven' } }),
          entityEvent(config, { operation: 'create', key: 'us:9007199254740993', version: 1, payload: { label: 'big' } }),
          entityEvent(config, { operation: 'update', key: 'eu:7', version: 2, payload: { label: 'SEVEN' } }),
        ]),
      );
      const all = (await sql().query<Row>(`select region, seq::text as seq, label, "_doc" from "${config.persistence.table}" order by region`)).rows;
      expect(all).toEqual([
        { region: 'eu', seq: '7', label: 'SEVEN', _doc: { region: 'eu', seq: 7, label: 'SEVEN' } },
        { region: 'us', seq: '9007199254740993', label: 'big', _doc: { region: 'us', seq: '9007199254740993', label: 'big' } },
      ]);
    });

    test('events that cannot be projected are passed over and the checkpoint moves on', async () => {
      const entity = uniqueEntity('unprojectable');
      const { entities, configs } = configSource({
        tenant: 'acme',
        entity,
        key: ['region', 'code'],
        fields: { region: { type: 'string' }, code: { type: 'string' } },
        roles: {},
      });
      const config = configs[0] as EntityConfig;
      const projection = projectionOf(entities);
      const ambiguous = entityEvent(config, { operation: 'update', key: 'a:b:c', version: 2, payload: {} });
      const notJson = { ...entityEvent(config, { operation: 'create', key: 'eu:x', version: 1 }), payload: '{not json' };
      const unconfigured = { ...entityEvent(config, { operation: 'create', key: 'eu:y', version: 1 }), entity: 'no_such_entity' };
      const good = entityEvent(config, { operation: 'create', key: 'eu:z', version: 1, payload: {} });
      const report = await projection.apply(batchOf(config, 0, [ambiguous, notJson, unconfigured, good]));
      expect(report).toMatchObject({ appliedOffsets: ['3'], unprojectable: 3, checkpointAfter: '4' });
      expect((await sql().query<Row>(`select region, code from "${config.persistence.table}"`)).rows).toEqual([{ region: 'eu', code: 'z' }]);
    });

    test('a value of the wrong type leaves its column null and stays in _doc', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('wrongtype')));
      const config = configs[0] as EntityConfig;
      await projectionOf(entities).apply(
        batchOf(config, 0, [
          entityEvent(config, { operation: 'create', key: 'w', version: 1, payload: { accountId: 'w', mcc: 'lots', score: '1.5', active: 'yes', openedAt: 'soon', address: [1], name: 5 } }),
        ]),
      );
      const row = (await rowOf(config, 'w')) as Row;
      expect(row).toMatchObject({ name: null, mcc: null, score: null, active: null, openedAt: null, address: null });
      expect(row._doc).toMatchObject({ mcc: 'lots', openedAt: 'soon', name: 5 });
    });

    test('a field added to the configuration becomes a column, filled from each stored _doc', async () => {
      const entity = uniqueEntity('evolve');
      const { entities, configs } = configSource(accountConfig(entity));
      const v1 = configs[0] as EntityConfig;
      const projection = projectionOf(entities);
      // Written while the configuration already had `tier` and `level`, projected before the projector saw it.
      await projection.apply(
        batchOf(v1, 0, [
          entityEvent(v1, { operation: 'create', key: 'old', version: 1, payload: { accountId: 'old', tier: 'gold', level: 3 } }),
          entityEvent(v1, { operation: 'create', key: 'bare', version: 1, payload: { accountId: 'bare' } }),
        ]),
      );
      const v2 = entities.put({ ...accountConfig(entity, { tier: { type: 'string' }, level: { type: 'integer' } }), version: 2 });
      const report = await projection.apply(batchOf(v2, 2, [entityEvent(v2, { operation: 'create', key: 'new', version: 1, payload: { accountId: 'new', tier: 'silver', level: 1 } })]));
      expect(report.appliedOffsets).toEqual(['2']);
      const all = (await sql().query<Row>(`select "accountId", tier, level::int as level from "${v2.persistence.table}" order by "accountId"`)).rows;
      expect(all).toEqual([
        { accountId: 'bare', tier: null, level: null },
        { accountId: 'new', tier: 'silver', level: 1 },
        { accountId: 'old', tier: 'gold', level: 3 },
      ]);
    });

    test('a changed field type or key is refused with a rebuild hint', async () => {
      const entity = uniqueEntity('refuse');
      const { configs } = configSource(accountConfig(entity));
      await migrateProjectionTable(sql(), projectionTableOf(configs[0] as EntityConfig));
      const retyped = configSource(accountConfig(entity, { mcc: { type: 'string' } })).configs[0] as EntityConfig;
      await expect(migrateProjectionTable(sql(), projectionTableOf(retyped))).rejects.toMatchObject({
        code: 'DB_CONFLICT',
        details: { field: 'mcc', rule: 'column-type', stage: 'projection' },
        message: expect.stringContaining('rebuild'),
      });
      const rekeyed = configSource({ ...accountConfig(entity), key: ['accountId', 'name'] }).configs[0] as EntityConfig;
      await expect(migrateProjectionTable(sql(), projectionTableOf(rekeyed))).rejects.toMatchObject({ code: 'DB_CONFLICT', details: { rule: 'primary-key' } });
    });

    test('injection-shaped keys and values are stored literally; an unsafe table name is refused', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('inject')));
      const config = configs[0] as EntityConfig;
      const nasty = [`x'); drop table projection_checkpoints; --`, `"; delete from "${config.persistence.table}"; --`, `$1 ? '\\' || $$`];
      await projectionOf(entities).apply(
        batchOf(
          config,
          0,
          nasty.map((key) => entityEvent(config, { operation: 'create', key, version: 1, payload: { accountId: key, name: key, address: { [key]: key } } })),
        ),
      );
      const stored = (await sql().query<Row>(`select "accountId", name, address from "${config.persistence.table}"`)).rows;
      const byKey = (a: Row, b: Row): number => String(a.accountId).localeCompare(String(b.accountId));
      expect(stored.sort(byKey)).toEqual(nasty.map((key) => ({ accountId: key, name: key, address: { [key]: key } })).sort(byKey));
      expect((await sql().query('select 1 from projection_checkpoints')).rows.length).toBeGreaterThan(0);

      const unsafe = { ...config, persistence: { ...config.persistence, table: 'x"; drop table projection_checkpoints; --' } };
      expect(() => projectionTableOf(unsafe)).toThrow(expect.objectContaining({ code: 'DB_INTERNAL', details: expect.objectContaining({ rule: 'identifier' }) }));
    });

    test('the RQL reader reads the projected table, here in a named schema', async () => {
      const schema = uniqueEntity('projections');
      await sql().query(`create schema "${schema}"`);
      const { entities, configs } = configSource(accountConfig(uniqueEntity('rql')));
      const config = configs[0] as EntityConfig;
      const projection = new TableProjection({ sql: sql(), entities, logger: silentLogger(), projector: uniqueEntity('projector'), schema });
      await projection.apply(
        batchOf(config, 0, [
          entityEvent(config, { operation: 'create', key: 'a', version: 1, payload: { accountId: 'a', name: 'Alpha', mcc: 5411, openedAt: '2026-01-02T00:00:00Z' } }),
          entityEvent(config, { operation: 'create', key: 'b', version: 1, payload: { accountId: 'b', name: 'Beta', mcc: 4000 } }),
          entityEvent(config, { operation: 'update', key: 'b', version: 2, payload: { accountId: 'b', mcc: 7995 } }),
          entityEvent(config, { operation: 'create', key: 'c', version: 1, payload: { accountId: 'c', name: 'Gamma', mcc: 1 } }),
        ]),
      );
      const compiled = compileRql('ge(mcc,5000),sort(-mcc),select(accountId,name,mcc)', config, { readableFields: readableFields(config, ['admin']), schema, meta: ['_version'] });
      const result = await sql().query<Row>(compiled.text, compiled.values);
      expect(result.rows.map((r) => decodeRow(r, compiled))).toEqual([
        { accountId: 'b', name: 'Beta', mcc: 7995, _version: 2 },
        { accountId: 'a', name: 'Alpha', mcc: 5411, _version: 1 },
      ]);
      expect((await sql().query(`select 1 from "${schema}"."${config.persistence.table}"`)).rows).toHaveLength(3);
    });

    test('waitFor answers true once the stored checkpoint passes the position, false on timeout', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('wait')));
      const config = configs[0] as EntityConfig;
      const projection = projectionOf(entities);
      const projector = projection.projector;
      // Another instance's view: it learns only from the stored checkpoints.
      const positions = new AppliedPositions((topic, partition) => readCheckpoint(sql(), { projector, topic, partition }));
      const position = { topic: config.persistence.topic, partition: 0, offset: '1' };
      expect(await positions.waitFor(position, 250)).toBe(false);
      const waiting = positions.waitFor(position, 5000);
      await projection.apply(
        batchOf(config, 0, [
          entityEvent(config, { operation: 'create', key: 'w1', version: 1, payload: { accountId: 'w1' } }),
          entityEvent(config, { operation: 'create', key: 'w2', version: 1, payload: { accountId: 'w2' } }),
        ]),
      );
      expect(await waiting).toBe(true);
      expect(await positions.waitFor({ ...position, offset: '2' }, 100)).toBe(false);
      positions.close();
    });
  });
}
