/** The table itself: its shape, migration from configuration, refusals, injection, the RQL reader, waitFor. */
import { qualifiedTable } from '../../support/entities';
import { AppliedPositions } from '../../../projections/postgres/applied-positions';
import { readCheckpoint } from '../../../projections/postgres/checkpoint-store';
import { TableProjection } from '../../../projections/postgres/table-projection';
import { migrateProjectionTable, projectionTableOf } from '../../../projections/postgres/table-schema';
import { silentLogger } from '../../../src/logger';
import { compileRql, decodeRow } from '../../../src/store/rql';
import { physicalNamesOf, readableFields, type EntityConfig } from '../../../src/tenant';
import type { ProjectionContext, Row } from './projection-context';
import { accountConfig, batchOf, configSource, entityEvent, uniqueEntity } from './projection-fixtures';

export function tableCases({ sql, projectionOf }: ProjectionContext): void {
  test('the table has a typed column per field, the system columns, and the key as primary key', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('shape')));
    const config = configs[0] as EntityConfig;
    await projectionOf(entities).tableFor(config);
    const columns = await sql().query<{ name: string; type: string; notnull: boolean }>(
      `select attname as name, format_type(atttypid, atttypmod) as type, attnotnull as notnull from pg_attribute
        where attrelid = to_regclass($1) and attnum > 0 and not attisdropped order by attnum`,
      [qualifiedTable(config)],
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
      [qualifiedTable(config)],
    );
    expect(pk.rows.map((r) => r.name)).toEqual(['accountId']);
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
    const report = await projection.apply(
      batchOf(v2, 2, [entityEvent(v2, { operation: 'create', key: 'new', version: 1, payload: { accountId: 'new', tier: 'silver', level: 1 } })]),
    );
    expect(report.appliedOffsets).toEqual(['2']);
    const all = (await sql().query<Row>(`select "accountId", tier, level::int as level from ${qualifiedTable(v2)} order by "accountId"`)).rows;
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
    const nasty = [`x'); drop table projection_checkpoints; --`, `"; delete from ${qualifiedTable(config)}; --`, `$1 ? '\\' || $$`];
    await projectionOf(entities).apply(
      batchOf(
        config,
        0,
        nasty.map((key) => entityEvent(config, { operation: 'create', key, version: 1, payload: { accountId: key, name: key, address: { [key]: key } } })),
      ),
    );
    const stored = (await sql().query<Row>(`select "accountId", name, address from ${qualifiedTable(config)}`)).rows;
    const byKey = (a: Row, b: Row): number => String(a.accountId).localeCompare(String(b.accountId));
    expect(stored.sort(byKey)).toEqual(nasty.map((key) => ({ accountId: key, name: key, address: { [key]: key } })).sort(byKey));
    expect((await sql().query('select 1 from projection_checkpoints')).rows.length).toBeGreaterThan(0);

    const unsafe = { ...config, persistence: { ...config.persistence, table: 'x"; drop table projection_checkpoints; --' } };
    expect(() => projectionTableOf(unsafe)).toThrow(expect.objectContaining({ code: 'DB_INTERNAL', details: expect.objectContaining({ rule: 'identifier' }) }));
  });

  test("the RQL reader reads the projected table, in the tenant's schema", async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('rql')));
    const config = configs[0] as EntityConfig;
    const { schema, table } = physicalNamesOf(config);
    const projection = new TableProjection({ sql: sql(), entities, logger: silentLogger(), projector: uniqueEntity('projector') });
    await projection.apply(
      batchOf(config, 0, [
        entityEvent(config, {
          operation: 'create',
          key: 'a',
          version: 1,
          payload: { accountId: 'a', name: 'Alpha', mcc: 5411, openedAt: '2026-01-02T00:00:00Z' },
        }),
        entityEvent(config, { operation: 'create', key: 'b', version: 1, payload: { accountId: 'b', name: 'Beta', mcc: 4000 } }),
        entityEvent(config, { operation: 'update', key: 'b', version: 2, payload: { accountId: 'b', name: 'Beta', mcc: 7995 } }),
        entityEvent(config, { operation: 'create', key: 'c', version: 1, payload: { accountId: 'c', name: 'Gamma', mcc: 1 } }),
      ]),
    );
    const compiled = compileRql('ge(mcc,5000),sort(-mcc),select(accountId,name,mcc)', config, {
      readableFields: readableFields(config, ['admin']),
      meta: ['_version'],
    });
    const result = await sql().query<Row>(compiled.text, compiled.values);
    expect(result.rows.map((r) => decodeRow(r, compiled))).toEqual([
      { accountId: 'b', name: 'Beta', mcc: 7995, _version: 2 },
      { accountId: 'a', name: 'Alpha', mcc: 5411, _version: 1 },
    ]);
    expect((await sql().query(`select 1 from "${schema}"."${table}"`)).rows).toHaveLength(3);
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
    await expect(positions.waitFor({ ...position, offset: '1; select pg_sleep(10)' }, 100)).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'position.offset' },
    });
    await expect(positions.waitFor({ ...position, partition: -1 }, 100)).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'position.partition' },
    });
    positions.close();
  });
}
