/**
 * The typed columns the row writer sends (taken from each document in JavaScript) against what PostgreSQL
 * takes from the stored `_doc` by fieldValueSql, for values at the edges of every field type: they must agree
 * row by row, through creates, merging updates with nulls, re-creates after deletes, and composite keys.
 */
import { qualifiedTable } from '../../support/entities';
import { fieldValueSql, projectionTableOf } from '../../../projections/postgres/table-schema';
import type { EntityConfig } from '../../../src/tenant';
import type { ProjectionContext, Row } from './projection-context';
import { accountConfig, batchOf, configSource, entityEvent, uniqueEntity } from './projection-fixtures';

/** Values that each column type must take, refuse (null), or carry through quoting unharmed. */
const EDGE_VALUES: readonly unknown[] = [
  'plain',
  '',
  'NULL',
  'quote " and backslash \\ and \\" both',
  '{braces, commas}',
  'tab\tnewline\nend',
  'ünïcødé ✓ 𝄞',
  0,
  -0,
  7,
  -42,
  1.5,
  0.1,
  1e17,
  999_999_999_999_999_900,
  1e18,
  -1e18,
  2 ** 53 + 2,
  1e21,
  1e308,
  5e-324,
  true,
  false,
  '2026-01-02T03:04:05Z',
  '2026-01-02 03:04',
  '2026-01-02',
  '2026-01-02T03:04:05.123456+02:00',
  '2026-01-02T03:04:05-0530',
  '2026-01-02T03:04:05+02',
  'yesterday',
  {},
  { nested: { list: [1, 'two', null], quote: '"' } },
  [1, 2],
  null,
];

export function columnCases({ sql, projectionOf }: ProjectionContext): void {
  /** Rows where a typed column differs from what fieldValueSql takes from `_doc`, as `column: key`. */
  async function disagreements(config: EntityConfig): Promise<string[]> {
    const table = projectionTableOf(config);
    const checks = table.fieldColumns.map((c) => `case when ${c.ident} is distinct from (${fieldValueSql(c, '"_doc"')}) then '${c.name}' end`);
    const keyText = table.keyColumns.map((c) => `${c.ident}::text`).join(` || '/' || `);
    const { rows } = await sql().query<{ key: string; columns: (string | null)[] }>(
      `select ${keyText} as key, array[${checks.join(', ')}] as columns from ${qualifiedTable(config)}`,
    );
    return rows.flatMap((r) => r.columns.filter((c): c is string => c !== null).map((c) => `${c}: ${r.key}`));
  }

  test('every typed column holds what PostgreSQL takes from _doc, for values at the edges of each type', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('edges'), { extra: { type: 'object' } }));
    const config = configs[0] as EntityConfig;
    const fields = ['name', 'mcc', 'score', 'active', 'openedAt', 'address', 'extra'];
    // Each value once in every field (a create per value), then merging updates that move each field to the next value.
    const creates = EDGE_VALUES.map((value, i) =>
      entityEvent(config, {
        operation: 'create',
        key: `k${i}`,
        version: 1,
        payload: { accountId: `k${i}`, ...Object.fromEntries(fields.map((f) => [f, value])) },
      }),
    );
    const updates = EDGE_VALUES.map((_, i) => {
      const next = EDGE_VALUES[(i + 1) % EDGE_VALUES.length];
      return entityEvent(config, { operation: 'update', key: `k${i}`, version: 2, payload: { [fields[i % fields.length] as string]: next, score: next } });
    });
    const projection = projectionOf(entities);
    await projection.apply(batchOf(config, 0, creates));
    expect(await disagreements(config)).toEqual([]);
    await projection.apply(batchOf(config, creates.length, updates));
    expect(await disagreements(config)).toEqual([]);

    // Agreement alone would also hold if every column were null: each column must have taken some values and refused others.
    const counts = await sql().query<Record<string, string>>(
      `select ${fields.map((f) => `count("${f}")::text as "${f}"`).join(', ')}, count(*)::text as rows from ${qualifiedTable(config)}`,
    );
    const { rows: total, ...taken } = counts.rows[0] as Record<string, string>;
    for (const [field, n] of Object.entries(taken)) expect([field, Number(n) > 0 && Number(n) < Number(total)]).toEqual([field, true]);
    const quoted = await sql().query<Row>(`select name, mcc::text as mcc from ${qualifiedTable(config)} where "accountId" in ('k3', 'k14')`);
    expect(quoted.rows).toEqual(
      expect.arrayContaining([
        { name: 'quote " and backslash \\ and \\" both', mcc: null },
        { name: null, mcc: '999999999999999900' },
      ]),
    );
  });

  test('composite keys with an integer part, deletes and re-creates: typed columns still agree with _doc', async () => {
    const { entities, configs } = configSource({
      tenant: 'acme',
      entity: uniqueEntity('composite'),
      key: ['region', 'seq'],
      fields: { region: { type: 'string' }, seq: { type: 'integer' }, label: { type: 'string' }, meta: { type: 'object' }, at: { type: 'timestamp' } },
      roles: { admin: { operations: '*' } },
    });
    const config = configs[0] as EntityConfig;
    const projection = projectionOf(entities);
    await projection.apply(
      batchOf(config, 0, [
        entityEvent(config, {
          operation: 'create',
          key: 'eu:1',
          version: 1,
          payload: { region: 'eu', seq: 1, label: 'a "b"', meta: { x: 1 }, at: '2026-01-02' },
        }),
        entityEvent(config, { operation: 'create', key: 'eu:2', version: 1, payload: { label: 'keys from the record key' } }),
        entityEvent(config, { operation: 'create', key: 'us:-3', version: 1, payload: { region: 'us', seq: -3, meta: null } }),
        entityEvent(config, { operation: 'delete', key: 'eu:2', version: 2 }),
        entityEvent(config, { operation: 'create', key: 'eu:2', version: 3, payload: { region: 'eu', seq: 2, label: 'again', at: 'not a time' } }),
        entityEvent(config, { operation: 'update', key: 'us:-3', version: 2, payload: { label: null, meta: { y: [true] } } }),
      ]),
    );
    await projection.apply(batchOf(config, 6, [entityEvent(config, { operation: 'delete', key: 'eu:1', version: 2 })]));
    expect(await disagreements(config)).toEqual([]);
    const { rows } = await sql().query<Row>(`select region, seq::int as seq, label, meta, at from ${qualifiedTable(config)} order by region, seq`);
    expect(rows).toEqual([
      { region: 'eu', seq: 2, label: 'again', meta: null, at: null },
      { region: 'us', seq: -3, label: null, meta: { y: [true] }, at: null },
    ]);
  });
}
