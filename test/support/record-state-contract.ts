/**
 * The record state store contract: one suite both adapters run (PostgreSQL, in memory), so unit tests that
 * use the in-memory store see the rules the service's store keeps.
 */
import type { RecordId, RecordStateStore, StoredVerdict } from '../../src/store/record-states/port';
import { recordIdKey } from '../../src/store/record-states/port';

const id = (key: string, tenant = 'acme'): RecordId => ({ tenant, entity: 'merchant_account', key });

const accepted = (rid: RecordId, deltaId: string, version: number, doc: Record<string, unknown> | null): StoredVerdict => ({
  status: 'accepted',
  id: rid,
  state: { version, deleted: doc === null, doc },
  outcome: {
    status: 'accepted',
    deltaId,
    eventId: `e-${deltaId}`,
    version,
    topic: `${rid.tenant}.merchant_account.events`,
    partition: 1,
    offset: String(version * 10),
  },
});

const refused = (tenant: string, deltaId: string, code: string): StoredVerdict => ({
  status: 'refused',
  tenant,
  outcome: { status: 'refused', deltaId, problem: { code, stage: 'validate' } },
});

/** `open` answers a store with nothing in it, used only by one test. */
export function describeRecordStateContract(name: string, open: () => Promise<RecordStateStore>): void {
  describe(`record state store contract: ${name}`, () => {
    test('records never written are absent; written ones come back by recordIdKey', async () => {
      const store = await open();
      await store.recordVerdicts([accepted(id('m-1'), 'd1', 1, { name: 'Ada' })]);
      const found = await store.getMany([id('m-1'), id('m-2'), id('m-1', 'globex')]);
      expect([...found.keys()]).toEqual([recordIdKey(id('m-1'))]);
      expect(found.get(recordIdKey(id('m-1')))).toEqual({ version: 1, deleted: false, doc: { name: 'Ada' } });
      expect((await store.getMany([])).size).toBe(0);
    });

    test("readBatch answers the batch's states and stored outcomes together, as getMany and outcomes do", async () => {
      const store = await open();
      await store.recordVerdicts([accepted(id('m-1'), 'd1', 1, { name: 'Ada' }), accepted(id('m-2'), 'd2', 2, null), refused('globex', 'd3', 'DB_FORBIDDEN')]);
      const ids = [id('m-1'), id('m-2'), id('m-3'), id('m-1', 'globex')];
      const deltas = [
        { tenant: 'acme', deltaId: 'd1' },
        { tenant: 'globex', deltaId: 'd3' },
        { tenant: 'acme', deltaId: 'd3' },
        { tenant: 'acme', deltaId: 'never' },
      ];
      const read = await store.readBatch(ids, deltas);
      expect(read.states).toEqual(await store.getMany(ids));
      expect([...read.states.keys()].sort()).toEqual([recordIdKey(id('m-1')), recordIdKey(id('m-2'))].sort());
      expect(read.states.get(recordIdKey(id('m-2')))).toEqual({ version: 2, deleted: true, doc: null });
      const sorted = (rows: { tenant: string; outcome: { deltaId: string } }[]) => rows.map((r) => `${r.tenant}:${r.outcome.deltaId}`).sort();
      expect(sorted(read.outcomes)).toEqual(['acme:d1', 'globex:d3']);
      expect(read.outcomes.sort((a, b) => a.tenant.localeCompare(b.tenant))).toEqual(
        (await store.outcomes(deltas)).sort((a, b) => a.tenant.localeCompare(b.tenant)),
      );
      expect(await store.readBatch([], [])).toMatchObject({ states: new Map(), outcomes: [] });
    });

    test('a state only moves forward, within a batch and across batches; a delete keeps its version', async () => {
      const store = await open();
      await store.recordVerdicts([
        accepted(id('m-1'), 'd1', 1, { name: 'v1' }),
        accepted(id('m-1'), 'd3', 3, { name: 'v3' }),
        accepted(id('m-1'), 'd2', 2, { name: 'v2' }),
      ]);
      await store.recordVerdicts([accepted(id('m-1'), 'd2b', 2, { name: 'stale' })]);
      expect((await store.getMany([id('m-1')])).get(recordIdKey(id('m-1')))).toEqual({ version: 3, deleted: false, doc: { name: 'v3' } });
      await store.recordVerdicts([accepted(id('m-1'), 'd4', 4, null)]);
      expect((await store.getMany([id('m-1')])).get(recordIdKey(id('m-1')))).toEqual({ version: 4, deleted: true, doc: null });
    });

    test("outcomes are per tenant; a delta's first outcome stays", async () => {
      const store = await open();
      await store.recordVerdicts([accepted(id('m-1'), 'same-id', 1, { name: 'a' }), refused('globex', 'same-id', 'DB_VALIDATION')]);
      await store.recordVerdicts([accepted(id('m-1'), 'same-id', 2, { name: 'again' })]);
      expect(await store.outcome('same-id', 'acme')).toEqual({
        status: 'accepted',
        deltaId: 'same-id',
        eventId: 'e-same-id',
        version: 1,
        topic: 'acme.merchant_account.events',
        partition: 1,
        offset: '10',
      });
      expect(await store.outcome('same-id', 'globex')).toEqual({
        status: 'refused',
        deltaId: 'same-id',
        problem: { code: 'DB_VALIDATION', stage: 'validate' },
      });
      expect(await store.outcome('same-id', 'initech')).toBeUndefined();
      const many = await store.outcomes([
        { tenant: 'acme', deltaId: 'same-id' },
        { tenant: 'globex', deltaId: 'same-id' },
        { tenant: 'initech', deltaId: 'same-id' },
      ]);
      expect(many.map((o) => `${o.tenant}:${o.outcome.status}`).sort()).toEqual(['acme:accepted', 'globex:refused']);
      expect(await store.outcomes([])).toEqual([]);
    });

    test('checkpoints start unknown and never go back', async () => {
      const store = await open();
      expect(await store.checkpoint('t.events', 0)).toBeUndefined();
      await store.storeCheckpoints([
        { topic: 't.events', partition: 0, nextOffset: '7' },
        { topic: 't.events', partition: 1, nextOffset: '2' },
      ]);
      await store.storeCheckpoints([{ topic: 't.events', partition: 0, nextOffset: '5' }]);
      expect(await store.checkpoint('t.events', 0)).toBe('7');
      expect(await store.checkpoint('t.events', 1)).toBe('2');
      expect(await store.checkpoint('other', 0)).toBeUndefined();
    });

    test('lowerCheckpoints moves checkpoints above the given offsets back to them, and leaves the others', async () => {
      const store = await open();
      await store.storeCheckpoints([
        { topic: 't.recreated', partition: 0, nextOffset: '7' },
        { topic: 't.recreated', partition: 1, nextOffset: '2' },
      ]);
      await store.lowerCheckpoints([
        { topic: 't.recreated', partition: 0, nextOffset: '0' },
        { topic: 't.recreated', partition: 1, nextOffset: '4' },
        { topic: 't.recreated', partition: 2, nextOffset: '0' },
      ]);
      expect(await store.checkpoint('t.recreated', 0)).toBe('0');
      expect(await store.checkpoint('t.recreated', 1)).toBe('2');
      expect(await store.checkpoint('t.recreated', 2)).toBeUndefined();
    });

    test('applyEvents records persisted events as accepted deltas with the checkpoint, idempotently', async () => {
      const store = await open();
      const events = [
        { id: id('m-7'), deltaId: 'p1', eventId: 'e-p1', version: 1, doc: { name: 'one' }, offset: '40' },
        { id: id('m-7'), deltaId: 'p2', eventId: 'e-p2', version: 2, doc: null, offset: '41' },
      ];
      const partition = { topic: 'acme.merchant_account.events', partition: 2, nextOffset: '42' };
      await store.applyEvents(events, partition);
      await store.applyEvents(events.slice(0, 1), { ...partition, nextOffset: '41' });
      expect((await store.getMany([id('m-7')])).get(recordIdKey(id('m-7')))).toEqual({ version: 2, deleted: true, doc: null });
      expect(await store.outcome('p1', 'acme')).toEqual({
        status: 'accepted',
        deltaId: 'p1',
        eventId: 'e-p1',
        version: 1,
        topic: partition.topic,
        partition: 2,
        offset: '40',
      });
      expect(await store.checkpoint(partition.topic, 2)).toBe('42');
      await store.applyEvents([], { ...partition, nextOffset: '50' });
      expect(await store.checkpoint(partition.topic, 2)).toBe('50');
    });

    test("readBatch says whether the store still holds this process's catch-up mark, with or without rows found", async () => {
      const store = await open();
      await store.recordVerdicts([accepted(id('m-7'), 'd7', 1, { name: 'Ada' })]);
      const read = () => store.readBatch([id('m-7'), id('m-8')], [{ tenant: 'acme', deltaId: 'd7' }]);
      expect((await read()).markLost).toBe(true);
      expect((await store.readBatch([id('m-8')], [])).markLost).toBe(true);
      await store.markCaughtUp();
      expect(await read()).toMatchObject({
        markLost: false,
        states: new Map([[recordIdKey(id('m-7')), { version: 1, deleted: false, doc: { name: 'Ada' } }]]),
      });
      expect((await store.readBatch([id('m-8')], [])).markLost).toBe(false);
      expect((await store.readBatch([], [])).markLost).toBe(false);
      await store.markCaughtUp();
      expect((await read()).markLost).toBe(false);
      await store.unmark();
      expect((await read()).markLost).toBe(true);
    });

    test('what is read back is a copy: changing it changes nothing stored', async () => {
      const store = await open();
      await store.recordVerdicts([accepted(id('m-9'), 'd9', 1, { name: 'kept' })]);
      const read = (await store.getMany([id('m-9')])).get(recordIdKey(id('m-9')));
      if (read?.doc) read.doc.name = 'changed';
      expect((await store.getMany([id('m-9')])).get(recordIdKey(id('m-9')))?.doc).toEqual({ name: 'kept' });
    });
  });
}
