import { from, lastValueFrom, tap, toArray } from 'rxjs';
import { DeltabrokerError } from '../../../src/errors';
import type { DeltaEnvelope } from '../../../src/log';
import { InMemoryEntityConfigSource, type EntityConfigSource } from '../../../src/tenant';
import { BatchActors } from '../../../streams/batch-actors';
import { BatchConfigs } from '../../../streams/batch-configs';
import type { DeltaContext } from '../../../streams/context';
import { stages, type Verdict } from '../../../streams/pipeline';
import type { LoadedStates } from '../../../streams/batch-state-view';
import { recordIdKey, type RecordId, type RecordState } from '../../../src/store/record-states/port';
import { defaultConfigInput } from '../tenant/fixtures';
import { envelope as delta } from './stages/stage-harness';

/** Record states in memory: what a batch's view loads from the store. */
class MemoryStates implements LoadedStates {
  readonly states = new Map<string, RecordState>();
  get(id: RecordId): RecordState {
    return this.states.get(recordIdKey(id)) ?? { version: 0, deleted: true, doc: null };
  }
  put(id: RecordId, state: RecordState): void {
    this.states.set(recordIdKey(id), state);
  }
}

async function decide(
  deltas: DeltaEnvelope[],
  states = new MemoryStates(),
  source: EntityConfigSource = new InMemoryEntityConfigSource([defaultConfigInput()]),
): Promise<Verdict[]> {
  const configs = await BatchConfigs.load(source, deltas);
  const ctxs = deltas.map((d): DeltaContext => ({ delta: d, source: undefined }));
  // The actor as the envelope names it (proof is the verifier's concern, tested with it).
  const actors = await BatchActors.prove({ prove: async (ctx) => ctx.delta.actor }, ctxs);
  return lastValueFrom(
    from(ctxs).pipe(
      stages({ configs, states, actors }),
      // What the processor does with an accepted verdict: the next delta of the batch sees the new state.
      tap(
        (v) =>
          v.accepted &&
          states.put(v.ctx.delta, { version: v.ctx.nextVersion as number, deleted: v.ctx.delta.operation === 'delete', doc: v.ctx.fields ?? null }),
      ),
      toArray(),
    ),
  );
}

const refusalOf = (v: Verdict | undefined) =>
  v && !v.accepted ? { code: v.refusal.code, stage: v.refusal.details.stage, rule: v.refusal.details.rule } : undefined;

describe('the pipeline stages (seed section 3) as operators', () => {
  test('an accepted create carries config, fields, version 1 and its persistence topic', async () => {
    const [v] = await decide([delta({})]);
    expect(v?.accepted).toBe(true);
    expect(v?.ctx).toMatchObject({ nextVersion: 1, persistenceTopic: 'acme.merchant_account.events', fields: { merchantId: 'm-1', name: 'Ada' } });
  });

  test('each stage refuses with its name, and later stages leave a refused delta alone', async () => {
    const verdicts = await decide([
      delta({ entity: 'nothing' }),
      delta({ payload: JSON.stringify({ merchantId: 'm-1', nope: 1, name: 'A' }) }),
      delta({ operation: 'update', key: 'm-9', payload: JSON.stringify({ merchantId: 'm-9', name: 'A' }) }),
      delta({ key: 'm-2', payload: JSON.stringify({ merchantId: 'm-2', name: 'A' }), actor: { user: 'u', roles: ['reader'] } }),
      delta({ key: 'm-3', payload: JSON.stringify({ merchantId: 'm-3', name: 'A', iban: 'DE89370400440532013000' }) }),
    ]);
    expect(verdicts.map(refusalOf)).toEqual([
      { code: 'DB_NOT_FOUND', stage: 'entity-config', rule: 'configured-entity' },
      { code: 'DB_VALIDATION', stage: 'validate', rule: 'unknown-field' },
      { code: 'DB_NOT_FOUND', stage: 'record-key', rule: 'exists' },
      { code: 'DB_FORBIDDEN', stage: 'permission', rule: expect.any(String) },
      { code: 'DB_VALIDATION', stage: 'encryption', rule: 'encrypted' },
    ]);
  });

  test('stage 6 strips a field the role may not write; a later delta of the batch sees the earlier one', async () => {
    const writer = { user: 'w', roles: ['writer'] };
    const [created, updated, again] = await decide([
      delta({ actor: writer, payload: JSON.stringify({ merchantId: 'm-1', name: 'Ada', status: 'vip' }) }),
      delta({ actor: writer, operation: 'update', payload: JSON.stringify({ merchantId: 'm-1', name: 'Ada L.' }), expectedVersion: 1 }),
      delta({ actor: writer }),
    ]);
    expect(created).toMatchObject({ accepted: true, ctx: { stripped: ['status'], fields: { merchantId: 'm-1', name: 'Ada' } } });
    expect(updated).toMatchObject({ accepted: true, ctx: { nextVersion: 2 } });
    expect(refusalOf(again)).toEqual({ code: 'DB_CONFLICT', stage: 'record-key', rule: 'already-exists' });
  });

  test('a tenant API that does not answer fails the batch instead of refusing its deltas', async () => {
    const down: EntityConfigSource = { get: () => Promise.reject(new Error('ECONNREFUSED')), list: async () => ({ configs: [], refused: [] }) };
    await expect(decide([delta({})], new MemoryStates(), down)).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
    const refusing: EntityConfigSource = {
      get: () => Promise.reject(new DeltabrokerError('DB_CONFLICT', 'name taken', { rule: 'name-taken' })),
      list: async () => ({ configs: [], refused: [] }),
    };
    expect(refusalOf((await decide([delta({})], new MemoryStates(), refusing))[0])).toEqual({
      code: 'DB_CONFLICT',
      stage: 'entity-config',
      rule: 'name-taken',
    });
  });
});
