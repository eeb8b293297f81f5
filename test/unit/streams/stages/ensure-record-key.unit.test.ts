import { recordIdKey, type RecordId, type RecordState } from '../../../../src/store/record-states/port';
import type { LoadedStates } from '../../../../streams/batch-state-view';
import { ensureRecordKey } from '../../../../streams/stages/ensure-record-key';
import { contextOf, refusalOf, runStage } from './stage-harness';

/** The record states stage 3 reads, in memory. */
function statesOf(entries: Record<string, RecordState> = {}): LoadedStates {
  return {
    get: (id: RecordId) => entries[id.key] ?? { version: 0, deleted: true, doc: null },
  };
}
const m1 = (version: number, deleted = false): Record<string, RecordState> => ({
  'm-1': { version, deleted, doc: deleted ? null : { merchantId: 'm-1', name: 'Ada' } },
});
const check = (states: LoadedStates, over: Parameters<typeof contextOf>[0]) => runStage(ensureRecordKey(states), { ctx: contextOf(over) });

describe('stage 3: record key and version', () => {
  test('a create of a new key is version 1; of a deleted key, the version after the delete', () => {
    expect(check(statesOf(), {}).ctx).toMatchObject({ nextVersion: 1, current: { version: 0, deleted: true } });
    expect(check(statesOf(m1(4, true)), {}).ctx.nextVersion).toBe(5);
  });

  test('an update or delete of an existing record goes to the next version and carries the current state', () => {
    const out = check(statesOf(m1(2)), { operation: 'update' });
    expect(out.refusal).toBeUndefined();
    expect(out.ctx).toMatchObject({ nextVersion: 3, current: { version: 2, doc: { name: 'Ada' } } });
    expect(check(statesOf(m1(2)), { operation: 'delete', payload: null }).ctx.nextVersion).toBe(3);
  });

  test('refuses a create of an existing key, and an update or delete of a missing or deleted one', () => {
    expect(refusalOf(check(statesOf(m1(1)), {}))).toEqual({ code: 'DB_CONFLICT', stage: 'record-key', field: 'key', rule: 'already-exists' });
    for (const states of [statesOf(), statesOf(m1(3, true))]) {
      expect(refusalOf(check(states, { operation: 'update' }))).toEqual({ code: 'DB_NOT_FOUND', stage: 'record-key', field: 'key', rule: 'exists' });
      expect(refusalOf(check(states, { operation: 'delete', payload: null }))).toEqual({
        code: 'DB_NOT_FOUND',
        stage: 'record-key',
        field: 'key',
        rule: 'exists',
      });
    }
  });

  test('expectedVersion must match the current version (0 for a record that does not exist)', () => {
    expect(check(statesOf(m1(2)), { operation: 'update', expectedVersion: 2 }).refusal).toBeUndefined();
    expect(refusalOf(check(statesOf(m1(2)), { operation: 'update', expectedVersion: 1 }))).toEqual({
      code: 'DB_CONFLICT',
      stage: 'record-key',
      field: 'expectedVersion',
      rule: 'expected-version',
    });
    expect(check(statesOf(), { expectedVersion: 0 }).refusal).toBeUndefined();
    expect(refusalOf(check(statesOf(m1(2, true)), { expectedVersion: 2 }))?.rule).toBe('expected-version');
  });

  test('records are told apart by tenant and entity, not only by key', () => {
    const stored: Record<string, RecordState> = {
      [recordIdKey({ tenant: 'globex', entity: 'merchant_account', key: 'm-1' })]: { version: 1, deleted: false, doc: {} },
    };
    const byId: LoadedStates = { get: (id) => stored[recordIdKey(id)] ?? { version: 0, deleted: true, doc: null } };
    expect(check(byId, {}).refusal).toBeUndefined();
  });
});
