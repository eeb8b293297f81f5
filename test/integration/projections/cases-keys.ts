/** Keys and payloads: composite and integer keys, events that cannot be projected, values of the wrong type. */
import { qualifiedTable } from '../../support/entities';
import type { EntityConfig } from '../../../src/tenant';
import type { ProjectionContext, Row } from './projection-context';
import { accountConfig, batchOf, configSource, entityEvent, uniqueEntity } from './projection-fixtures';

export function keyCases({ sql, projectionOf, rowOf }: ProjectionContext): void {
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
    const all = (await sql().query<Row>(`select region, seq::text as seq, label, "_doc" from ${qualifiedTable(config)} order by region`)).rows;
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
    expect((await sql().query<Row>(`select region, code from ${qualifiedTable(config)}`)).rows).toEqual([{ region: 'eu', code: 'z' }]);
  });

  test('a value of the wrong type leaves its column null and stays in _doc', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('wrongtype')));
    const config = configs[0] as EntityConfig;
    await projectionOf(entities).apply(
      batchOf(config, 0, [
        entityEvent(config, {
          operation: 'create',
          key: 'w',
          version: 1,
          payload: { accountId: 'w', mcc: 'lots', score: '1.5', active: 'yes', openedAt: 'soon', address: [1], name: 5 },
        }),
      ]),
    );
    const row = (await rowOf(config, 'w')) as Row;
    expect(row).toMatchObject({ name: null, mcc: null, score: null, active: null, openedAt: null, address: null });
    expect(row._doc).toMatchObject({ mcc: 'lots', openedAt: 'soon', name: 5 });
  });
}
