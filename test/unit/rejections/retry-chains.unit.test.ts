import { retryIdOf, type DeltaVerdict, type VerdictLookup } from '../../../src/broker/rejections';
import type { TenantDelta } from '../../../src/broker/rejections/verdicts';
import { walkChains } from '../../../src/broker/rejections/retry-chains';
import { planRetries } from '../../../src/broker/rejections/retry-plan';
import type { Rejection } from '../../../src/log';

const refusedVerdict = (deltaId: string, tenant = 'acme'): DeltaVerdict => ({
  status: 'refused',
  deltaId,
  tenant,
  code: 'DB_FORBIDDEN',
  stage: 'permission',
  field: 'dispatch.operation',
  rule: 'operation',
  message: 'no',
});
const acceptedVerdict = (deltaId: string, tenant = 'acme'): DeltaVerdict => ({
  status: 'accepted',
  deltaId,
  tenant,
  version: 1,
  eventId: 'e',
  position: { topic: 't', partition: 0, offset: '0' },
});

/** Verdicts from a map, counting look-ups. */
class MapVerdicts implements VerdictLookup {
  lookups = 0;
  constructor(readonly known = new Map<string, DeltaVerdict>()) {}
  add(...verdicts: DeltaVerdict[]): this {
    for (const v of verdicts) this.known.set(`${v.tenant}/${v.deltaId}`, v);
    return this;
  }
  async verdicts(deltas: readonly TenantDelta[]): Promise<Map<string, DeltaVerdict>> {
    this.lookups++;
    const keys = deltas.map((d) => `${d.tenant}/${d.deltaId}`);
    return new Map(keys.flatMap((key) => (this.known.has(key) ? [[key, this.known.get(key) as DeltaVerdict] as const] : [])));
  }
}

/** The chain of retry ids after `id`: f(id), f(f(id)), … */
const chain = (id: string, n: number, tenant = 'acme'): string[] => {
  const out: string[] = [];
  for (let i = 0, cur = id; i < n; i++) out.push((cur = retryIdOf(tenant, cur)));
  return out;
};

describe('retryIdOf', () => {
  test('follows from tenant and refused delta id, shaped as a version-5 UUID', () => {
    expect(retryIdOf('acme', 'd-1')).toBe(retryIdOf('acme', 'd-1'));
    expect(retryIdOf('acme', 'd-1')).not.toBe(retryIdOf('globex', 'd-1'));
    expect(retryIdOf('acme', 'd-1')).not.toBe(retryIdOf('acme', 'd-2'));
    expect(retryIdOf('acme', 'd-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('walkChains', () => {
  test('a refused delta never retried is open at itself, with its own verdict', async () => {
    const lookup = new MapVerdicts().add(refusedVerdict('d-1'));
    const state = (await walkChains([{ tenant: 'acme', deltaId: 'd-1' }], lookup)).get('acme/d-1');
    expect(state).toMatchObject({ kind: 'refused', latest: 'd-1', attempts: [], own: { field: 'dispatch.operation' } });
  });

  test('follows refused retries to the newest one, across look-ahead rounds, and stops at an accepted one', async () => {
    const ids = chain('d-1', 7);
    const lookup = new MapVerdicts().add(refusedVerdict('d-1'), ...ids.slice(0, 6).map((id) => refusedVerdict(id)), acceptedVerdict(ids[6] as string));
    const state = (await walkChains([{ tenant: 'acme', deltaId: 'd-1' }], lookup)).get('acme/d-1');
    expect(state).toMatchObject({ kind: 'accepted', by: ids[6] });
    expect(state?.attempts.map((a) => [a.retryOf, a.deltaId])).toEqual(ids.map((id, i) => [i === 0 ? 'd-1' : ids[i - 1], id]));
    expect(lookup.lookups).toBe(2);

    const open = await walkChains([{ tenant: 'acme', deltaId: 'd-2' }], new MapVerdicts().add(...chain('d-2', 5).map((id) => refusedVerdict(id))));
    expect(open.get('acme/d-2')).toMatchObject({ kind: 'refused', latest: chain('d-2', 5)[4] });
  });

  test('a delta decided again and accepted after its rejection is not retried', async () => {
    const state = (await walkChains([{ tenant: 'acme', deltaId: 'd-1' }], new MapVerdicts().add(acceptedVerdict('d-1')))).get('acme/d-1');
    expect(state).toMatchObject({ kind: 'accepted', by: 'd-1', attempts: [] });
  });

  test("another tenant's verdict under the same delta id is not this delta's", async () => {
    const state = (await walkChains([{ tenant: 'acme', deltaId: 'shared-key' }], new MapVerdicts().add(acceptedVerdict('shared-key', 'globex')))).get(
      'acme/shared-key',
    );
    expect(state).toMatchObject({ kind: 'refused', latest: 'shared-key', own: undefined });
  });
});

const rejection = (deltaId: string | null, over: Partial<Rejection> = {}): Rejection => ({
  id: `r-${deltaId ?? 'decode'}`,
  stage: 'permission',
  reason: 'DB_FORBIDDEN',
  message: 'no',
  deltaId,
  requestId: null,
  tenant: deltaId === null ? null : 'acme',
  entity: 'merchant_account',
  key: 'k',
  source: { topic: 'deltas', partition: 1, offset: 7, key: 'acme/merchant_account/k' },
  raw: null,
  rejectedAt: 0,
  ...over,
});

describe('planRetries', () => {
  test('sends one retry per chain from its newest refused attempt; skips accepted ones and what cannot be sent', async () => {
    const [r1] = chain('d-open', 1);
    const lookup = new MapVerdicts().add(
      refusedVerdict('d-open'),
      refusedVerdict(r1 as string),
      refusedVerdict('d-done'),
      acceptedVerdict(retryIdOf('acme', 'd-done')),
    );
    const rejections = [
      rejection('d-open'),
      rejection(r1 as string, { source: { topic: 'deltas', partition: 1, offset: 9, key: null } }),
      rejection('d-done'),
      rejection(null, { stage: 'decode' }),
      rejection('d-nosource', { source: null }),
    ];
    const chains = await walkChains(
      [
        { tenant: 'acme', deltaId: 'd-open' },
        { tenant: 'acme', deltaId: r1 as string },
        { tenant: 'acme', deltaId: 'd-done' },
      ],
      lookup,
    );
    const plan = planRetries(rejections, chains);
    expect(plan.sends).toEqual([
      {
        deltaId: 'd-open',
        tenant: 'acme',
        source: { topic: 'deltas', partition: 1, offset: '7' },
        retry: { deltaId: retryIdOf('acme', r1 as string), retryOf: r1 },
      },
    ]);
    expect(plan.items).toEqual([
      { deltaId: r1, action: 'skipped', reason: 'covered by the retry of d-open', retry: { deltaId: retryIdOf('acme', r1 as string), retryOf: r1 } },
      { deltaId: 'd-done', action: 'skipped', reason: 'accepted', acceptedBy: retryIdOf('acme', 'd-done') },
      { deltaId: null, action: 'not-retriable', reason: 'the record could not be decoded: there is no delta to send' },
      { deltaId: 'd-nosource', action: 'not-retriable', reason: 'the rejection names no source record' },
    ]);
  });
});
