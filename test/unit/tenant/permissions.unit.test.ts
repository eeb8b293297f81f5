import { DeltabrokerError } from '../../../src/errors';
import {
  applyWriteRestrictions,
  assertMayPerform,
  mayPerform,
  parseEntityConfig,
  projectReadable,
  readableFields,
  rightsFor,
  OPERATIONS,
} from '../../../src/tenant';
import { defaultConfig, minimalInput } from './fixtures';

const c = defaultConfig();
const full = { merchantId: 'm1', name: 'ACME', country: 'DE', mcc: 5812, status: 'active', iban: 'aes256skv1:k:v1:xyz' };

function thrown(fn: () => unknown): DeltabrokerError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DeltabrokerError) return e;
    throw e;
  }
  throw new Error('expected a DeltabrokerError');
}

describe('operations', () => {
  it.each([
    ['admin', ['create', 'read', 'search', 'update', 'delete']],
    ['writer', ['create', 'update', 'delete']],
    ['reader', ['read', 'search']],
    ['auditor', []],
  ])('%s may %j', (role, allowed) => {
    for (const op of OPERATIONS) expect(mayPerform(c, [role], op)).toBe(allowed.includes(op));
  });

  it('unions the rights of several roles', () => {
    for (const op of OPERATIONS) expect(mayPerform(c, ['writer', 'reader'], op)).toBe(true);
  });

  it('gives no rights without roles, or to a role named like an Object.prototype member', () => {
    expect(mayPerform(c, [], 'read')).toBe(false);
    expect(mayPerform(c, ['constructor', 'toString', '__proto__'], 'read')).toBe(false);
  });

  it('assertMayPerform refuses with DB_FORBIDDEN at stage permission', () => {
    const e = thrown(() => assertMayPerform(c, ['reader'], 'create'));
    expect(e.code).toBe('DB_FORBIDDEN');
    expect(e.details).toMatchObject({ rule: 'operation', stage: 'permission', operation: 'create' });
    expect(() => assertMayPerform(c, ['reader'], 'read')).not.toThrow();
  });
});

describe('write restrictions', () => {
  it('lets admin write everything and strips nothing', () => {
    expect(applyWriteRestrictions(c, ['admin'], 'create', full)).toEqual({ payload: full, stripped: [] });
  });

  it('strips status from a writer payload and reports it', () => {
    const r = applyWriteRestrictions(c, ['writer'], 'update', full);
    const { status: _s, ...rest } = full;
    expect(r.payload).toEqual(rest);
    expect(r.stripped).toEqual(['status']);
  });

  it('does not modify the input payload', () => {
    const input = { ...full };
    applyWriteRestrictions(c, ['writer'], 'update', input);
    expect(input).toEqual(full);
  });

  it('refuses a role whose writeDenied is refuse, naming the field at stage permission-filter', () => {
    const d = parseEntityConfig({
      ...minimalInput(),
      fields: { id: 'string', label: 'string', secret: 'string', flag: 'boolean' },
      roles: { editor: { operations: ['update'], write: ['label'] } },
    });
    const e = thrown(() => applyWriteRestrictions(d, ['editor'], 'update', { id: 'a', label: 'x', secret: 's', flag: true }));
    expect(e.code).toBe('DB_FORBIDDEN');
    expect(e.details).toMatchObject({ field: 'secret', fields: ['secret', 'flag'], rule: 'field-not-writable', stage: 'permission-filter' });
    expect(e.message).toContain('"secret", "flag"');
  });

  it('always admits the key fields for a role allowed the operation', () => {
    const d = parseEntityConfig({ ...minimalInput(), roles: { editor: { operations: ['update'], write: ['label'] } } });
    expect(applyWriteRestrictions(d, ['editor'], 'update', { id: 'a', label: 'x' })).toEqual({ payload: { id: 'a', label: 'x' }, stripped: [] });
  });

  it('unions writable fields: writer + admin may write status', () => {
    expect(applyWriteRestrictions(c, ['writer', 'admin'], 'update', full).stripped).toEqual([]);
  });

  it('lets refuse win over strip when the granting roles disagree', () => {
    const d = parseEntityConfig({
      ...minimalInput(),
      fields: { id: 'string', a: 'string', b: 'string' },
      roles: {
        soft: { operations: ['create'], write: ['a'], writeDenied: 'strip' },
        hard: { operations: ['create'], write: ['a'], writeDenied: 'refuse' },
        other: { operations: ['read'], writeDenied: 'refuse' },
      },
    });
    expect(applyWriteRestrictions(d, ['soft', 'other'], 'create', { id: '1', a: 'x', b: 'y' }).stripped).toEqual(['b']);
    expect(() => applyWriteRestrictions(d, ['soft', 'hard'], 'create', { id: '1', a: 'x', b: 'y' })).toThrow(/may not write field "b"/);
    expect(rightsFor(d, ['soft', 'other'], 'create').granting).toEqual(['soft']);
  });

  it('works out the rights of a configuration, roles and operation once, and anew for a changed configuration', () => {
    const first = rightsFor(c, ['writer'], 'create');
    expect(rightsFor(c, ['writer'], 'create')).toBe(first);
    expect(rightsFor(c, ['writer'], 'update')).not.toBe(first);
    expect(rightsFor(c, ['writer', 'reader'], 'create')).not.toBe(first);
    const changed = { ...c, roles: { ...c.roles, writer: { ...c.roles.writer!, write: [] } } };
    expect(rightsFor(changed, ['writer'], 'create').writable.has('name')).toBe(false);
    expect(first.writable.has('name')).toBe(true);
  });

  it('treats fields that are not configured as not writable', () => {
    expect(applyWriteRestrictions(c, ['writer'], 'create', { merchantId: 'm', extra: 1 }).stripped).toEqual(['extra']);
    expect(() => applyWriteRestrictions(c, ['admin'], 'create', { merchantId: 'm', extra: 1 })).toThrow(DeltabrokerError);
  });

  it('keeps a "__proto__" key as data instead of letting it change the prototype', () => {
    const payload = JSON.parse('{"merchantId":"m","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const r = applyWriteRestrictions(c, ['writer'], 'create', payload);
    expect(r.stripped).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(r.payload)).toBe(Object.prototype);
    expect((r.payload as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('refuses a role without the operation at stage permission-filter', () => {
    const e = thrown(() => applyWriteRestrictions(c, ['reader'], 'create', full));
    expect(e.details).toMatchObject({ rule: 'operation', stage: 'permission-filter' });
  });
});

describe('readable fields', () => {
  it('hides iban from reader, in read and search', () => {
    expect([...readableFields(c, ['reader'])]).toEqual(['merchantId', 'name', 'country', 'mcc', 'status']);
    expect([...readableFields(c, ['reader'], 'search')]).toEqual(['merchantId', 'name', 'country', 'mcc', 'status']);
  });

  it('shows everything to admin and to reader + admin', () => {
    expect([...readableFields(c, ['admin'])]).toEqual(Object.keys(c.fields));
    expect([...readableFields(c, ['reader', 'admin'])]).toEqual(Object.keys(c.fields));
  });

  it('is empty for roles that may not read (writer, unknown role)', () => {
    expect(readableFields(c, ['writer']).size).toBe(0);
    expect(readableFields(c, ['nobody']).size).toBe(0);
  });

  it('projectReadable drops the rest of a document', () => {
    expect(projectReadable(full, readableFields(c, ['reader']))).toEqual({ merchantId: 'm1', name: 'ACME', country: 'DE', mcc: 5812, status: 'active' });
  });
});
