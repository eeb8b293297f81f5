import { DeltabrokerError } from '../../../src/errors';
import {
  acceptsMethod,
  actionTopics,
  physicalNamesOf,
  parseEntityConfig,
  safeParseEntityConfig,
  sensitiveFields,
  fieldSpec,
  type EntityConfig,
} from '../../../src/tenant';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { defaultConfig, defaultConfigInput, minimalInput } from './fixtures';

function issuesOf(input: unknown): string[] {
  const r = safeParseEntityConfig(input);
  if (r.ok) throw new Error('expected the config to be refused');
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

describe('the shipped default configuration (acme/merchant_account)', () => {
  const c = defaultConfig();

  it('has the seed example: key merchantId, six fields, iban sensitive with aes and hsm', () => {
    expect(c.tenant).toBe('acme');
    expect(c.entity).toBe('merchant_account');
    expect(c.key).toEqual(['merchantId']);
    expect(Object.keys(c.fields)).toEqual(['merchantId', 'name', 'country', 'mcc', 'status', 'iban']);
    expect(c.fields.name).toEqual({ type: 'string', required: true, sensitive: false });
    expect(c.fields.mcc?.type).toBe('integer');
    expect(c.fields.iban?.sensitive).toEqual({ methods: ['aes', 'hsm'] });
    expect(sensitiveFields(c)).toEqual(['iban']);
  });

  it('names its topic, table and index, and turns both action topics on', () => {
    expect(c.persistence).toEqual({ topic: 'acme.merchant_account.events', table: 'merchant_account', index: 'merchant_account' });
    expect(physicalNamesOf(c)).toEqual({
      schema: 'tenant_acme',
      table: 'merchant_account',
      index: 'acme__merchant_account',
      topic: 'acme.merchant_account.events',
    });
    expect(c.notifications.methods).toEqual(['global', 'local']);
    expect(actionTopics(c, 'dc1')).toEqual(['acme.merchant_account.actions.global', 'acme.merchant_account.actions.dc1']);
  });

  it('resolves the roles: admin everything, writer without status (strip), reader without iban', () => {
    expect(c.roles.admin).toEqual({
      operations: ['create', 'read', 'search', 'update', 'delete'],
      write: ['merchantId', 'name', 'country', 'mcc', 'status', 'iban'],
      read: ['merchantId', 'name', 'country', 'mcc', 'status', 'iban'],
      writeDenied: 'refuse',
    });
    expect(c.roles.writer?.operations).toEqual(['create', 'update', 'delete']);
    expect(c.roles.writer?.write).toEqual(['merchantId', 'name', 'country', 'mcc', 'iban']);
    expect(c.roles.writer?.writeDenied).toBe('strip');
    expect(c.roles.reader?.operations).toEqual(['read', 'search']);
    expect(c.roles.reader?.read).toEqual(['merchantId', 'name', 'country', 'mcc', 'status']);
    expect(c.roles.reader?.write).toEqual([]);
  });

  it('is a fixed point: parsing the normalised config again gives the same config', () => {
    expect(parseEntityConfig(JSON.parse(JSON.stringify(c)))).toEqual(c);
  });
});

describe('src/tenant/README.md', () => {
  const readme = readFileSync(path.resolve(__dirname, '../../../src/tenant/README.md'), 'utf8');

  it('shows the shipped default configuration', () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(parseEntityConfig(parse(block))).toEqual(defaultConfig());
  });

  it('documents every field of the configuration', () => {
    const c = defaultConfig();
    const paths = [
      ...Object.keys(c).filter((k) => k !== 'persistence'), // documented key by key
      ...['type', 'required', 'sensitive', 'description'].map((k) => `fields.<f>.${k}`),
      ...Object.keys(c.persistence).map((k) => `persistence.${k}`),
      ...['globalTopic', 'localTopicPrefix'].map((k) => `notifications.${k}`),
      ...Object.keys(c.roles.writer ?? {}).map((k) => `roles.<r>.${k}`),
    ];
    for (const p of paths) expect(readme).toContain(`| \`${p}\` |`);
  });
});

describe('defaults and shorthands', () => {
  const c = parseEntityConfig(minimalInput());

  it('derives topic, table, index and action topic names from tenant and entity', () => {
    expect(c.version).toBe(1);
    expect(c.persistence).toEqual({ topic: 't1.thing.events', table: 'thing', index: 'thing' });
    expect(c.notifications).toEqual({ methods: [], globalTopic: 't1.thing.actions.global', localTopicPrefix: 't1.thing.actions' });
    expect(actionTopics(c, 'dc1')).toEqual([]);
    expect(c.roles).toEqual({});
  });

  it('accepts a type name for a field and a single key name; key fields become required', () => {
    expect(c.key).toEqual(['id']);
    expect(c.fields.id).toEqual({ type: 'string', required: true, sensitive: false });
  });

  it('reads notifications as a list, sensitive: true as every method family', () => {
    const d = parseEntityConfig({ ...minimalInput(), notifications: ['local'], fields: { id: 'string', secret: { type: 'string', sensitive: true } } });
    expect(d.notifications.methods).toEqual(['local']);
    expect(d.fields.secret?.sensitive).toEqual({ methods: ['aes', 'hsm'] });
    expect(actionTopics(d, 'eu-west-1')).toEqual(['t1.thing.actions.eu-west-1']);
  });

  it('keeps explicit names and custom action topics, inside the tenant namespace', () => {
    const d = parseEntityConfig({
      ...minimalInput(),
      version: 7,
      persistence: { topic: 't1.custom-topic', table: 'things', index: 'things_idx' },
      notifications: { methods: ['global'], globalTopic: 't1.all.things' },
    });
    expect(d.version).toBe(7);
    expect(d.persistence).toEqual({ topic: 't1.custom-topic', table: 'things', index: 'things_idx' });
    expect(physicalNamesOf(d)).toEqual({ schema: 'tenant_t1', table: 'things', index: 't1__things_idx', topic: 't1.custom-topic' });
    expect(actionTopics(d, 'dc1')).toEqual(['t1.all.things']);
  });

  it('gives a role that names no field sets every field to read and write', () => {
    const d = parseEntityConfig({ ...minimalInput(), roles: { ops: { operations: ['read'] } } });
    expect(d.roles.ops).toEqual({ operations: ['read'], write: ['id', 'label'], read: ['id', 'label'], writeDenied: 'refuse' });
  });
});

describe('refusals name the field path', () => {
  const cases: Array<[string, (c: Record<string, unknown>) => unknown, RegExp]> = [
    ['a missing tenant', ({ tenant: _t, ...rest }) => rest, /^tenant: /],
    ['an entity name that is not identifier-safe', (c) => ({ ...c, entity: 'Merchant-Account' }), /^entity: entity must be lowercase words/],
    ['an entity name with a double underscore', (c) => ({ ...c, entity: 'merchant__account' }), /^entity: entity must be lowercase words/],
    ['a tenant name with a trailing underscore', (c) => ({ ...c, tenant: 'acme_' }), /^tenant: tenant must be lowercase words/],
    ['a tenant name over 30 characters', (c) => ({ ...c, tenant: 'a'.repeat(31) }), /^tenant: tenant is longer than 30 characters/],
    [
      "a persistence topic outside the tenant's namespace",
      (c) => ({ ...c, persistence: { topic: 'acme.merchant_account.events' } }),
      /^persistence\.topic: topic "acme\.merchant_account\.events" is outside the tenant's namespace: it must start with "t1\."/,
    ],
    [
      "a global action topic outside the tenant's namespace",
      (c) => ({ ...c, notifications: { methods: ['global'], globalTopic: 'acme.x.actions.global' } }),
      /^notifications\.globalTopic: .*outside the tenant's namespace/,
    ],
    [
      "a local topic prefix outside the tenant's namespace",
      (c) => ({ ...c, notifications: { methods: ['local'], localTopicPrefix: 't1' } }),
      /^notifications\.localTopicPrefix: .*must start with "t1\."/,
    ],
    [
      'an index name too long for the tenant prefix',
      (c) => ({ ...c, persistence: { index: 'x'.repeat(60) } }),
      /^persistence\.index: index name is longer than 59 characters/,
    ],
    ['a path-traversing tenant', (c) => ({ ...c, tenant: '../etc' }), /^tenant: /],
    ['an unknown top-level key (a typo)', (c) => ({ ...c, feilds: {} }), /feilds/],
    ['an unknown field type', (c) => ({ ...c, fields: { id: 'string', n: { type: 'float' } } }), /^fields\.n\.type: Invalid option/],
    ['a field name with a quote', (c) => ({ ...c, fields: { id: 'string', 'a"b': 'string' } }), /^fields\.a"b: "a\\"b": field name must be an identifier/],
    [
      'a field name starting with _ (reserved)',
      (c) => ({ ...c, fields: { id: 'string', _doc: 'string' } }),
      /^fields\._doc: "_doc": field name must be an identifier starting with a letter/,
    ],
    ['a key field that is not declared', (c) => ({ ...c, key: ['nope'] }), /^key\[0\]: key field "nope" is not declared/],
    ['a key field of type number', (c) => ({ ...c, fields: { id: 'number' } }), /^key\[0\]: key field "id" must be of type string or integer/],
    ['a sensitive key field', (c) => ({ ...c, fields: { id: { type: 'string', sensitive: true } } }), /^key\[0\]: key field "id" may not be sensitive/],
    ['a key that is not a name', (c) => ({ ...c, key: 5 }), /^key: expected a field name or a list of them, received 5$/],
    ['a field that is neither a type nor an object', (c) => ({ ...c, fields: { id: 'string', n: 5 } }), /^fields\.n: expected a field type/],
    [
      'a misspelt field attribute',
      (c) => ({ ...c, fields: { id: 'string', n: { type: 'string', requird: true } } }),
      /^fields\.n: Unrecognized key: "requird"/,
    ],
    [
      'a sensitive flag that is neither boolean nor {methods}',
      (c) => ({ ...c, fields: { id: 'string', s: { type: 'string', sensitive: 'yes' } } }),
      /^fields\.s\.sensitive: expected true, false or \{methods/,
    ],
    [
      'a field set that is not *, a list or {except}',
      (c) => ({ ...c, roles: { r: { operations: ['read'], read: 'all' } } }),
      /^roles\.r\.read: expected '\*', a list of field names or \{except/,
    ],
    ['operations that are not * or a list', (c) => ({ ...c, roles: { r: { operations: 'all' } } }), /^roles\.r\.operations: expected '\*' or a list/],
    ['a sensitive field that is not a string', (c) => ({ ...c, fields: { id: 'string', n: { type: 'integer', sensitive: true } } }), /^fields\.n\.sensitive: /],
    [
      'an unknown encryption method',
      (c) => ({ ...c, fields: { id: 'string', s: { type: 'string', sensitive: { methods: ['des'] } } } }),
      /^fields\.s\.sensitive\.methods\[0\]: Invalid option/,
    ],
    [
      'a role naming an undeclared field',
      (c) => ({ ...c, roles: { r: { operations: ['read'], read: ['id', 'ghost'] } } }),
      /^roles\.r\.read\[1\]: field "ghost" is not declared/,
    ],
    [
      'a role excepting an undeclared field',
      (c) => ({ ...c, roles: { r: { operations: '*', write: { except: ['ghost'] } } } }),
      /^roles\.r\.write\.except\[0\]/,
    ],
    ['an unknown operation', (c) => ({ ...c, roles: { r: { operations: ['list'] } } }), /^roles\.r\.operations\[0\]: Invalid option/],
    ['an unknown writeDenied', (c) => ({ ...c, roles: { r: { operations: ['create'], writeDenied: 'drop' } } }), /^roles\.r\.writeDenied/],
    ['a role name with a space', (c) => ({ ...c, roles: { 'a b': { operations: '*' } } }), /^roles\.a b: "a b": role name may hold/],
    ['a topic name with a space', (c) => ({ ...c, persistence: { topic: 'a topic' } }), /^persistence\.topic: /],
    ['a table name with a dot', (c) => ({ ...c, persistence: { table: 'public.x' } }), /^persistence\.table: /],
    ['a table name over 63 characters', (c) => ({ ...c, persistence: { table: 'x'.repeat(64) } }), /^persistence\.table: /],
    ['an unknown notification method', (c) => ({ ...c, notifications: ['email'] }), /^notifications\.methods\[0\]: Invalid option/],
    ['a version of 0', (c) => ({ ...c, version: 0 }), /^version: /],
    ['no fields', (c) => ({ ...c, fields: {} }), /^fields: at least one field/],
    [
      'two fields differing only by case',
      (c) => ({ ...c, fields: { id: 'string', Name: 'string', name: 'string' } }),
      /^fields\.name: field "name" differs from "Name" only by case/,
    ],
  ];

  it.each(cases)('refuses %s', (_label, change, expected) => {
    const issues = issuesOf(change(minimalInput()));
    expect(issues.some((i) => expected.test(i))).toBe(true);
  });

  it('throws a DeltabrokerError whose message lists every path and whose details name the first', () => {
    const input = { ...minimalInput(), entity: 'Bad', fields: { id: 'string', n: { type: 'float' } } };
    let err: unknown;
    try {
      parseEntityConfig(input, 'acme/bad.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DeltabrokerError);
    const e = err as DeltabrokerError;
    expect(e.code).toBe('DB_ENTITY_CONFIG_INVALID');
    expect(e.message).toMatch(/^invalid entity configuration in acme\/bad\.yaml: /);
    expect(e.message).toContain('entity: ');
    expect(e.message).toContain('fields.n');
    expect(e.details).toMatchObject({ source: 'acme/bad.yaml', field: 'entity', rule: 'pattern', stage: 'entity-config' });
    expect(e.details.issues).toEqual([
      expect.objectContaining({ path: 'entity', rule: 'pattern' }),
      expect.objectContaining({ path: 'fields.n.type', rule: 'enum' }),
    ]);
  });

  it.each([
    ['a topic outside the tenant namespace', { persistence: { topic: 'acme.x.events' } }, 'persistence.topic', 'tenant-namespace'],
    ['an unknown key', { requird: true }, '(root)', 'unknown-key'],
    ['a key field not declared', { key: 'nope' }, 'key[0]', 'declared'],
    ['a field of the wrong type', { version: 'one' }, 'version', 'type'],
    ['a sensitive key', { fields: { id: { type: 'string', sensitive: true }, label: 'string' } }, 'key[0]', 'key-in-clear'],
  ])('names the rule of each issue: %s', (_label, change, field, rule) => {
    const r = safeParseEntityConfig({ ...minimalInput(), ...change });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]).toMatchObject({ path: field, rule });
  });

  it('never turns a "__proto__" role into a role (or a prototype)', () => {
    const c = parseEntityConfig({ ...minimalInput(), roles: JSON.parse('{"__proto__":{"operations":"*"}}') });
    expect(Object.keys(c.roles)).toEqual([]);
    expect(Object.getPrototypeOf(c.roles)).toBe(Object.prototype);
  });

  it('refuses a datacenter name that cannot form a local topic', () => {
    const c = defaultConfig();
    expect(() => actionTopics(c, 'global')).toThrow(DeltabrokerError);
    expect(() => actionTopics(c, 'd c')).toThrow(/cannot form a topic name/);
  });
});

describe('helpers', () => {
  const c: EntityConfig = defaultConfig();

  it('fieldSpec finds own fields only', () => {
    expect(fieldSpec(c, 'name')?.type).toBe('string');
    expect(fieldSpec(c, 'constructor')).toBeUndefined();
    expect(fieldSpec(c, 'toString')).toBeUndefined();
  });

  it('acceptsMethod: aliases accept their family, explicit versions only themselves', () => {
    const iban = c.fields.iban!;
    expect(acceptsMethod(iban, 'aes256skv1')).toBe(true);
    expect(acceptsMethod(iban, 'hsmv1')).toBe(true);
    expect(acceptsMethod(iban, 'des')).toBe(false);
    const strict = parseEntityConfig({
      ...defaultConfigInput(),
      fields: { merchantId: 'string', name: 'string', iban: { type: 'string', sensitive: { methods: ['hsmv1'] } } },
      roles: {},
    });
    expect(acceptsMethod(strict.fields.iban!, 'hsmv1')).toBe(true);
    expect(acceptsMethod(strict.fields.iban!, 'aes256skv1')).toBe(false);
    expect(acceptsMethod(c.fields.name!, 'aes256skv1')).toBe(false);
  });
});
