import { indexWriteOf, keepNewest, newestIndexable } from '../../../projections/search/newest-documents';
import type { LogRecord, ProjectedEvent } from '../../../src/log';
import type { IndexDefinition } from '../../../src/search';

const index: IndexDefinition = {
  name: 'acme_account',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'n', type: 'integer' },
  ],
};

const recordOf = (value: ProjectedEvent, offset: number): LogRecord<ProjectedEvent> => ({
  topic: 'persistence',
  partition: 0,
  offset: String(offset),
  key: value.key,
  value,
  headers: {},
  timestamp: value.recordedAt,
  schemaId: 1,
});

const raw = (key: string, version: number, payload: string): ProjectedEvent => ({ ...event(key, version, {}), payload });

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
    expect(indexWriteOf(event('a', 4, { id: 'a', n: 4 }), index)).toEqual({ kind: 'upsert', doc: { id: 'a', source: { id: 'a', n: 4 }, version: 4 } });
    expect(indexWriteOf(event('a', 5, null), index)).toEqual({ kind: 'delete', id: 'a' });
  });

  test('a document the index would refuse is named with its field and rule, not written', () => {
    expect(indexWriteOf(raw('a', 2, '["not", "an", "object"]'))).toEqual({ kind: 'refused', reason: 'the payload is not a JSON object' });
    expect(indexWriteOf(raw('a', 2, '{"id": "a", "n": '))).toEqual({ kind: 'refused', reason: 'the payload is not JSON' });
    expect(indexWriteOf(event('a', 2, { id: 'a', n: 'two' }), index)).toEqual({ kind: 'refused', reason: expect.stringMatching(/^source\.n \(type\)/) });
    expect(indexWriteOf(event('a', 2, { id: 'a\u0000' }), index)).toEqual({ kind: 'refused', reason: expect.stringContaining('nul-character') });
  });

  test('unchecked, a document is refused only when its payload is not a JSON object: the index checks the rest', () => {
    expect(indexWriteOf(event('a', 2, { id: 'a', n: 'two' }))).toEqual({ kind: 'upsert', doc: { id: 'a', source: { id: 'a', n: 'two' }, version: 2 } });
  });

  test('of a record whose newest event is refused, its newest the index takes is written and the newer ones passed over', () => {
    const records = [
      recordOf(event('a', 1, { id: 'a', n: 1 }), 10),
      recordOf(event('a', 2, { id: 'a', n: 2 }), 11),
      recordOf(raw('a', 4, '[4]'), 13),
      recordOf(event('a', 3, { id: 'a', n: 'three' }), 12),
    ];
    const { write, passedOver } = newestIndexable(records, index);
    expect(write).toEqual({ kind: 'upsert', doc: { id: 'a', source: { id: 'a', n: 2 }, version: 2 } });
    expect(passedOver.map((p) => p.record.offset)).toEqual(['13', '12']);
    expect(newestIndexable([recordOf(event('a', 5, null), 14), ...records], index).write).toEqual({ kind: 'delete', id: 'a' });
    expect(newestIndexable([records[2] as LogRecord<ProjectedEvent>], index)).toMatchObject({ write: undefined, passedOver: [{ reason: expect.any(String) }] });
  });
});
