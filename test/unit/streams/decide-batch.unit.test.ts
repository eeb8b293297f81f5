/**
 * decide() against the in-memory record state store (the same contract as the PostgreSQL one): what a batch of
 * deltas becomes, with the batch's own verdicts visible to its later deltas and stored outcomes answered again.
 */
import type { Actor, DeltaEnvelope } from '../../../src/log';
import { InMemoryRecordStateStore } from '../../../src/store/record-states/in-memory-record-states';
import type { StoredVerdict } from '../../../src/store/record-states/port';
import { InMemoryEntityConfigSource } from '../../../src/tenant';
import { BatchActors } from '../../../streams/batch-actors';
import { BatchConfigs } from '../../../streams/batch-configs';
import { BatchStateView } from '../../../streams/batch-state-view';
import type { DeltaContext } from '../../../streams/context';
import { decide, type Decision } from '../../../streams/decide-batch';
import { eventIdOf } from '../../../src/log/topology';
import { defaultConfigInput } from '../tenant/fixtures';
import { envelope } from './stages/stage-harness';

const entities = new InMemoryEntityConfigSource([defaultConfigInput()]);
const ada = (over: Record<string, unknown> = {}) => JSON.stringify({ merchantId: 'm-1', name: 'Ada', ...over });

/** Loads what the batch needs from `store` as the delta processor does, with each delta's actor proven as `proven` (default: as claimed). */
async function decideBatch(store: InMemoryRecordStateStore, deltas: DeltaEnvelope[], proven?: Actor): Promise<Decision[]> {
  const ctxs = deltas.map((delta, i): DeltaContext => ({ delta, source: { topic: 'deltas', partition: 4, offset: String(100 + i) } }));
  const [states, configs, actors] = await Promise.all([
    BatchStateView.load(store, deltas),
    BatchConfigs.load(entities, deltas),
    BatchActors.prove({ prove: async (ctx) => proven ?? ctx.delta.actor }, ctxs),
  ]);
  return decide(ctxs, { configs, states, actors });
}

const stored = (deltaId: string, version: number, doc: Record<string, unknown> | null): StoredVerdict => ({
  status: 'accepted',
  id: { tenant: 'acme', entity: 'merchant_account', key: 'm-1' },
  state: { version, deleted: doc === null, doc },
  outcome: {
    status: 'accepted',
    deltaId,
    eventId: eventIdOf('acme', deltaId),
    version,
    topic: 'acme.merchant_account.events',
    partition: 0,
    offset: String(version),
  },
});

describe('decide(): a batch of deltas against the record states', () => {
  test('an accepted create becomes an event with the whole record, version 1, its event id and topic', async () => {
    const delta = envelope({ payload: ada({ country: 'FR' }) });
    const [d] = await decideBatch(new InMemoryRecordStateStore(), [delta]);
    if (d?.kind !== 'accepted') throw new Error(`expected accepted, got ${d?.kind}`);
    expect(d.topic).toBe('acme.merchant_account.events');
    expect(d.event).toMatchObject({ eventId: eventIdOf('acme', delta.id), deltaId: delta.id, operation: 'create', key: 'm-1', version: 1 });
    expect(JSON.parse(d.event.payload as string)).toEqual({ merchantId: 'm-1', name: 'Ada', country: 'FR' });
    expect(d.state).toEqual({ version: 1, deleted: false, doc: { merchantId: 'm-1', name: 'Ada', country: 'FR' } });
  });

  test('an update carries the stored fields it leaves out; a delete carries none', async () => {
    const store = new InMemoryRecordStateStore();
    await store.recordVerdicts([stored('d-old', 3, { merchantId: 'm-1', name: 'Ada', country: 'FR', mcc: 5411 })]);
    const [updated, deleted] = await decideBatch(store, [
      envelope({ operation: 'update', payload: ada({ name: 'Ada L.' }) }),
      envelope({ operation: 'delete', payload: null }),
    ]);
    expect(updated).toMatchObject({ kind: 'accepted', event: { version: 4 }, state: { doc: { merchantId: 'm-1', name: 'Ada L.', country: 'FR', mcc: 5411 } } });
    expect(deleted).toMatchObject({ kind: 'accepted', event: { version: 5, payload: null }, state: { version: 5, deleted: true, doc: null } });
  });

  test("a later delta of the batch sees an earlier one's verdict", async () => {
    const decisions = await decideBatch(new InMemoryRecordStateStore(), [
      envelope(),
      envelope({ operation: 'update', payload: ada({ status: 'active' }), expectedVersion: 1 }),
      envelope(),
    ]);
    expect(decisions.map((d) => d.kind)).toEqual(['accepted', 'accepted', 'refused']);
    expect(decisions[1]).toMatchObject({ event: { version: 2 } });
    expect(decisions[2]).toMatchObject({ refusal: { code: 'DB_CONFLICT', details: { stage: 'record-key', rule: 'already-exists' } } });
  });

  test('a refusal becomes a rejection naming the stage, the reason and where the delta was read', async () => {
    const delta = envelope({ payload: ada({ nickname: 'x' }), requestId: 'req-7' });
    const [d] = await decideBatch(new InMemoryRecordStateStore(), [delta]);
    if (d?.kind !== 'refused') throw new Error(`expected refused, got ${d?.kind}`);
    expect(d.rejection).toMatchObject({
      stage: 'validate',
      reason: 'DB_VALIDATION',
      deltaId: delta.id,
      requestId: 'req-7',
      source: { topic: 'deltas', partition: 4, offset: 100, key: 'acme/merchant_account/m-1' },
    });
    expect(d.problem).toEqual({
      code: 'DB_VALIDATION',
      stage: 'validate',
      message: d.refusal.message,
      details: { field: 'payload.nickname', rule: 'unknown-field' },
    });
  });

  test('a delta with a stored outcome is answered with it, not decided again', async () => {
    const store = new InMemoryRecordStateStore();
    await store.recordVerdicts([stored('d-known', 1, { merchantId: 'm-1', name: 'Ada' })]);
    // Run again it would now be refused (the record exists): the stored verdict stands.
    const [d] = await decideBatch(store, [envelope({ id: 'd-known' })]);
    expect(d).toMatchObject({ kind: 'known', outcome: { status: 'accepted', deltaId: 'd-known', version: 1 } });
  });

  test("the same delta twice in a batch is answered with the first one's decision", async () => {
    const first = envelope();
    const [a, again] = await decideBatch(new InMemoryRecordStateStore(), [first, { ...first }]);
    expect(a?.kind).toBe('accepted');
    expect(again).toMatchObject({ kind: 'repeat', of: a });
  });

  test("the event carries the proven actor, never the envelope's claim", async () => {
    const [d] = await decideBatch(new InMemoryRecordStateStore(), [envelope({ actor: { user: 'mallory', roles: ['admin'] } })], {
      user: 'w',
      roles: ['writer'],
    });
    expect(d).toMatchObject({ kind: 'accepted', event: { actor: { user: 'w', roles: ['writer'] } } });
  });
});
