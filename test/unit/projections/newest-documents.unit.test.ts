import { documentOf, keepNewest } from '../../../projections/search/newest-documents';
import type { ProjectedEvent } from '../../../src/log';

const event = (key: string, version: number, payload: Record<string, unknown> | null): ProjectedEvent => ({
  eventId: `e-${key}-${version}`,
  tenant: 'acme',
  entity: 'account',
  operation: payload === null ? 'delete' : version === 1 ? 'create' : 'update',
  key,
  version,
  payload: payload === null ? null : JSON.stringify(payload),
  recordedAt: 1_700_000_000_000 + version,
});

describe('what a search projection writes for a batch', () => {
  test('each record keeps its event of the highest version, even when an older one comes after it', () => {
    const newest = new Map<string, ProjectedEvent>();
    for (const e of [event('a', 1, { id: 'a' }), event('b', 1, { id: 'b' }), event('a', 3, { id: 'a', n: 3 }), event('a', 2, { id: 'a', n: 2 })])
      keepNewest(newest, e.key, e);
    expect([...newest.values()].map((e) => [e.key, e.version])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
  });

  test('an event of the same version as the one held does not replace it', () => {
    const newest = new Map<string, ProjectedEvent>();
    const first = event('a', 2, { id: 'a', n: 1 });
    keepNewest(newest, 'a', first);
    keepNewest(newest, 'a', event('a', 2, { id: 'a', n: 2 }));
    expect(newest.get('a')).toBe(first);
  });

  test('an upsert carries the event’s whole document and version; a delete writes no document', () => {
    expect(documentOf(event('a', 4, { id: 'a', name: 'A' }))).toEqual({ id: 'a', source: { id: 'a', name: 'A' }, version: 4 });
    expect(documentOf(event('a', 5, null))).toBeUndefined();
  });
});
