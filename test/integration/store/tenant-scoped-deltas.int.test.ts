/**
 * Migration 004 on a real PostgreSQL: delta outcomes stored before it keep their tenant, and afterwards two
 * tenants may each have a delta with the same id, each answered only to its own tenant.
 */
import { silentLogger } from '../../../src/logger';
import { MIGRATIONS } from '../../../src/store/migrations';
import { migrate } from '../../../src/store/migrator';
import type { StoredVerdict } from '../../../src/store/record-states/port';
import { PostgresRecordStateStore } from '../../../src/store/record-states/postgres-record-states';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';

const accepted = (tenant: string, deltaId: string, version: number): StoredVerdict => ({
  status: 'accepted',
  id: { tenant, entity: 'merchant_account', key: 'm-1' },
  state: { version, deleted: false, doc: { merchantId: 'm-1' } },
  outcome: {
    status: 'accepted',
    deltaId,
    eventId: `e-${tenant}-${deltaId}`,
    version,
    topic: `${tenant}.merchant_account.events`,
    partition: 0,
    offset: String(version),
  },
});

describe('tenant-scoped delta outcomes (migration 004)', () => {
  let store: ScratchSql;

  beforeAll(async () => {
    store = await scratchPostgres('deltas');
    await migrate(
      store.sql,
      silentLogger(),
      MIGRATIONS.filter((m) => m.version <= 3),
    );
    await store.sql.query(
      `insert into delta_outcomes (delta_id, tenant, status, event_id, version, topic, partition, log_offset) values ('k-old', 'acme', 'accepted', 'e-old', 1, 't', 0, '0')`,
    );
    expect(await migrate(store.sql, silentLogger())).toEqual(MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version));
  });
  afterAll(() => store.close());

  test('keeps the outcomes stored before it, under their tenant', async () => {
    const states = new PostgresRecordStateStore(store.sql);
    expect(await states.outcome('k-old', 'acme')).toMatchObject({ status: 'accepted', eventId: 'e-old' });
    expect(await states.outcome('k-old', 'evil')).toBeUndefined();
  });

  test("a delta id one tenant used first does not hide or replace another tenant's", async () => {
    const states = new PostgresRecordStateStore(store.sql);
    await states.recordVerdicts([accepted('evil', 'acme-upd-key-1', 1)]);
    await states.recordVerdicts([accepted('acme', 'acme-upd-key-1', 2)]);
    // A redelivery of acme's delta changes nothing: the first outcome stays.
    await states.recordVerdicts([accepted('acme', 'acme-upd-key-1', 3)]);
    expect(await states.outcome('acme-upd-key-1', 'acme')).toMatchObject({ version: 2, eventId: 'e-acme-acme-upd-key-1' });
    expect(await states.outcome('acme-upd-key-1', 'evil')).toMatchObject({ version: 1, eventId: 'e-evil-acme-upd-key-1' });
    const both = await states.outcomes([
      { tenant: 'acme', deltaId: 'acme-upd-key-1' },
      { tenant: 'evil', deltaId: 'acme-upd-key-1' },
      { tenant: 'globex', deltaId: 'acme-upd-key-1' },
    ]);
    expect(both.map((o) => `${o.tenant}/${o.outcome.deltaId}`).sort()).toEqual(['acme/acme-upd-key-1', 'evil/acme-upd-key-1']);
  });
});
