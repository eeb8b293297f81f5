import { foldRecordChanges, keyValuesOf } from '../../../projections/postgres/row-changes';
import { projectionTableOf } from '../../../projections/postgres/table-schema';
import type { EntityEvent, LogRecord } from '../../../src/log';
import { InMemoryEntityConfigSource } from '../../../src/tenant';

const config = new InMemoryEntityConfigSource().put({
  tenant: 'acme',
  entity: 'account',
  key: ['id'],
  fields: { id: { type: 'string', required: true }, name: { type: 'string' }, tier: { type: 'integer' } },
  roles: {},
});
const table = projectionTableOf(config);

let offset = 0;
function record(key: string, operation: EntityEvent['operation'], version: number, payload: Record<string, unknown> | null | string): LogRecord<EntityEvent> {
  offset += 1;
  const value: EntityEvent = {
    eventId: `e${offset}`,
    deltaId: `d${offset}`,
    requestId: null,
    tenant: 'acme',
    entity: 'account',
    operation,
    key,
    version,
    payload: payload === null ? null : typeof payload === 'string' ? payload : JSON.stringify(payload),
    actor: { user: 'u', roles: [] },
    origin: { datacenter: 'dc1' },
    occurredAt: 1_700_000_000_000 + offset,
    recordedAt: 1_700_000_000_000 + offset,
  };
  return { topic: 't', partition: 2, offset: String(offset), key, value, headers: {}, timestamp: value.recordedAt, schemaId: 1 };
}

describe('folding a batch into one change per record', () => {
  test('a create and its updates become one replace with the newest event’s document, version and position', () => {
    const last = record('a', 'update', 3, { id: 'a', name: 'B', tier: 2 });
    const { changes } = foldRecordChanges(table, [
      record('a', 'create', 1, { id: 'a', name: 'A', tier: 1 }),
      record('a', 'update', 2, { id: 'a', name: 'B', tier: 1 }),
      last,
    ]);
    expect(changes).toEqual([
      {
        mode: 'replace',
        key: ['a'],
        doc: { id: 'a', name: 'B', tier: 2 },
        version: 3,
        eventId: last.value.eventId,
        position: `t/2/${last.offset}`,
        updatedAt: new Date(last.value.recordedAt).toISOString(),
      },
    ]);
  });

  test('updates alone merge over the stored document (key fields added); the events’ payloads are left as they were', () => {
    const first = record('b', 'update', 4, { name: 'X' });
    const second = record('b', 'update', 5, { tier: 7, name: null });
    const { changes } = foldRecordChanges(table, [first, second]);
    expect(changes.map(({ mode, doc, version }) => ({ mode, doc, version }))).toEqual([{ mode: 'merge', doc: { name: null, id: 'b', tier: 7 }, version: 5 }]);
    expect(JSON.parse(first.value.payload as string)).toEqual({ name: 'X' });
  });

  test('a delete ends a record; an update after it starts a fresh document; older or equal versions are ignored', () => {
    const { changes } = foldRecordChanges(table, [
      record('c', 'create', 1, { id: 'c', name: 'C' }),
      record('c', 'delete', 2, null),
      record('d', 'update', 3, { name: 'D' }),
      record('d', 'update', 3, { name: 'duplicate' }),
      record('d', 'update', 2, { name: 'older' }),
      record('c', 'update', 3, { tier: 9 }),
    ]);
    expect(changes.map(({ mode, key, doc, version }) => ({ mode, key, doc, version }))).toEqual([
      { mode: 'replace', key: ['c'], doc: { tier: 9, id: 'c' }, version: 3 },
      { mode: 'merge', key: ['d'], doc: { name: 'D', id: 'd' }, version: 3 },
    ]);
  });

  test('a field named __proto__ stays a field of the merged document', () => {
    const { changes } = foldRecordChanges(table, [
      record('e', 'create', 1, { id: 'e' }),
      record('e', 'update', 2, '{"__proto__": {"polluted": true}, "name": "E"}'),
    ]);
    const doc = changes[0]?.doc as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(doc))).toEqual(JSON.parse('{"id": "e", "__proto__": {"polluted": true}, "name": "E"}'));
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
  });

  test('only a record’s newest event is read: an unreadable payload it supersedes is neither parsed nor passed over', () => {
    const { changes, skipped } = foldRecordChanges(table, [
      record('h', 'create', 1, { id: 'h', name: 'H' }),
      record('h', 'update', 2, 'not json'),
      record('h', 'update', 3, { id: 'h', name: 'H3' }),
    ]);
    expect(skipped).toEqual([]);
    expect(changes.map(({ mode, doc, version }) => ({ mode, doc, version }))).toEqual([{ mode: 'replace', doc: { id: 'h', name: 'H3' }, version: 3 }]);
  });

  test('a newest event that cannot be projected is passed over, and the events before it fold one by one', () => {
    const bad = record('i', 'update', 3, '[1]');
    const { changes, skipped } = foldRecordChanges(table, [
      record('i', 'create', 1, { id: 'i', name: 'I' }),
      record('j', 'update', 1, { id: 'j', tier: 1 }),
      record('i', 'update', 2, { tier: 4 }),
      bad,
    ]);
    expect(skipped).toEqual([{ record: bad, reason: 'payload-not-an-object' }]);
    expect(changes.map(({ mode, key, doc, version }) => ({ mode, key, doc, version }))).toEqual([
      { mode: 'merge', key: ['j'], doc: { id: 'j', tier: 1 }, version: 1 },
      { mode: 'replace', key: ['i'], doc: { id: 'i', name: 'I', tier: 4 }, version: 2 },
    ]);
  });

  test('payloads that are not objects are passed over with their reason', () => {
    const { changes, skipped } = foldRecordChanges(table, [record('f', 'create', 1, '[1]'), record('g', 'create', 1, 'not json')]);
    expect(changes).toEqual([]);
    expect(skipped.map((s) => s.reason)).toEqual(['payload-not-an-object', 'payload-not-an-object']);
  });
});

describe('the key values of a record with a key of one field', () => {
  const keyed = (type: 'string' | 'integer') =>
    projectionTableOf(
      new InMemoryEntityConfigSource().put({
        tenant: 'acme',
        entity: `by_${type}`,
        key: ['id'],
        fields: { id: { type, required: true }, name: { type: 'string' } },
        roles: {},
      }),
    );

  test('come from the payload’s key field when it is a string or a number, else from the record key', () => {
    expect(keyValuesOf(keyed('string'), 'rk', { id: 'p' })).toEqual(['p']);
    expect(keyValuesOf(keyed('string'), 'rk', { id: 7 })).toEqual(['7']);
    expect(keyValuesOf(keyed('string'), 'rk', { name: 'n' })).toEqual(['rk']);
    expect(keyValuesOf(keyed('string'), 'rk', { id: { nested: true } })).toEqual(['rk']);
  });

  test('an integer key that is not an integer cannot be mapped', () => {
    expect(keyValuesOf(keyed('integer'), '12', {})).toEqual(['12']);
    expect(keyValuesOf(keyed('integer'), 'x', {})).toBeUndefined();
    expect(keyValuesOf(keyed('integer'), '12', { id: 1.5 })).toBeUndefined();
  });
});
