import { readFileSync } from 'node:fs';
import { GENERATED_FILE, generateSchemaDocs, generateSchemaTypes } from '../../../src/log/schema-codegen';
import { readSchemaDefinitions } from '../../../src/log/schema-files';
import { loadSchemas, RECORD_NAMES, type DeltaEnvelope, type Rejection } from '../../../src/log/schemas';

type Node = { [k: string]: unknown };

/** Every named type and every field of a schema, with the path that leads to it. */
function* documentables(schema: unknown, at: string): Generator<[string, Node]> {
  if (Array.isArray(schema)) {
    for (const s of schema) yield* documentables(s, at);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as Node;
  if (node.type === 'record' || node.type === 'enum') yield [`${at}<${String(node.name)}>`, node];
  if (node.type === 'record') {
    for (const f of node.fields as Node[]) {
      yield [`${at}.${String(f.name)}`, f];
      yield* documentables(f.type, `${at}.${String(f.name)}`);
    }
  }
  if (node.type === 'array') yield* documentables(node.items, at);
  if (node.type === 'map') yield* documentables(node.values, at);
}

describe('record schemas', () => {
  test('the record schemas load, in namespace dev.deltabroker', () => {
    const schemas = loadSchemas();
    expect(Object.keys(schemas).sort()).toEqual([...RECORD_NAMES].sort());
    for (const name of RECORD_NAMES) expect(schemas[name].type.name).toBe(`dev.deltabroker.${name}`);
  });

  test('every record, enum and field carries a doc', () => {
    const undocumented: string[] = [];
    for (const [name, definition] of Object.entries(readSchemaDefinitions())) {
      for (const [where, node] of documentables(definition, name)) {
        if (typeof node.doc !== 'string' || node.doc.trim() === '') undocumented.push(where);
      }
    }
    expect(undocumented).toEqual([]);
  });

  test('src/log/schema-types.ts is what the generator makes of schemas/*.avsc (refresh: npx tsx src/log/schema-codegen.ts)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(generateSchemaTypes(readSchemaDefinitions()));
  });

  test('the field tables of docs/records.md (schema-codegen --markdown) list every field with its doc', () => {
    const markdown = generateSchemaDocs(readSchemaDefinitions());
    for (const [name, definition] of Object.entries(readSchemaDefinitions())) {
      expect(markdown).toContain(`#### ${name} (\`schemas/${name}.avsc\`)`);
      for (const [where, node] of documentables(definition, name)) {
        if ('fields' in node || 'symbols' in node) continue;
        expect([where, markdown.includes(`| \`${String(node.name)}\` |`) && markdown.includes(String(node.doc))]).toEqual([where, true]);
      }
    }
  });

  test('optional fields have defaults, so producers may leave them out of older writers', () => {
    const { DeltaEnvelope: delta } = loadSchemas();
    const minimal = {
      id: 'd1',
      tenant: 'acme',
      entity: 'customer',
      operation: 'delete',
      key: 'c1',
      actor: { user: 'u1' },
      origin: { datacenter: 'dc1' },
      occurredAt: 1,
    };
    const filled = delta.type.fromBuffer(delta.type.toBuffer(delta.type.clone(minimal, { skipMissingFields: true }))) as DeltaEnvelope;
    expect({ ...filled, actor: { ...filled.actor }, origin: { ...filled.origin } }).toEqual({
      ...minimal,
      requestId: null,
      payload: null,
      actor: { user: 'u1', roles: [] },
      expectedVersion: null,
      retryOf: null,
    });
  });

  test('a typed value of each generated type is valid for its schema', () => {
    const schemas = loadSchemas();
    const delta: DeltaEnvelope = {
      id: 'd1',
      requestId: 'r1',
      tenant: 'acme',
      entity: 'customer',
      operation: 'update',
      key: 'c1',
      payload: '{"name":"Ada"}',
      actor: { user: 'u1', roles: ['admin'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.UTC(2026, 0, 1),
      expectedVersion: 3,
      retryOf: null,
    };
    const rejection: Rejection = {
      id: 'x',
      stage: 'decode',
      reason: 'DECODE_MAGIC_BYTE',
      message: 'm',
      deltaId: null,
      requestId: null,
      tenant: null,
      entity: null,
      key: null,
      source: { topic: 'deltas', partition: 0, offset: 7, key: null },
      raw: Buffer.from([1, 2]).toString('base64'),
      rejectedAt: 1,
    };
    expect(schemas.DeltaEnvelope.type.isValid(delta)).toBe(true);
    expect(schemas.Rejection.type.isValid(rejection)).toBe(true);
    expect(schemas.DeltaEnvelope.type.isValid({ ...delta, operation: 'upsert' })).toBe(false);
  });
});
