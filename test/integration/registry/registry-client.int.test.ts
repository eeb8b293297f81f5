/**
 * The embedded registry driven by the real @kafkajs/confluent-schema-registry client, the way the log
 * adapter and any Node producer use it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { AvroConfluentSchema } from '@kafkajs/confluent-schema-registry/dist/@types';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas } from '../../../src/log/schemas';

const avro = (schema: object): AvroConfluentSchema => ({ type: SchemaType.AVRO, schema: JSON.stringify(schema) });
const customerV1 = {
  type: 'record',
  name: 'Customer',
  namespace: 'dev.deltabroker.test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'name', type: 'string' },
  ],
};
const customerV2 = { ...customerV1, fields: [...customerV1.fields, { name: 'tier', type: 'string', default: 'basic' }] };
const customerBroken = { ...customerV1, fields: [...customerV1.fields, { name: 'age', type: 'int' }] };

let dataDir: string;
let registry: EmbeddedRegistry;
let client: SchemaRegistry;

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'registry-client-'));
  registry = await startEmbeddedRegistry({ dataDir, port: 0 });
  client = new SchemaRegistry({ host: registry.url, retry: { retries: 0 } });
});
afterEach(async () => {
  await registry.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded schema registry with @kafkajs/confluent-schema-registry', () => {
  test('registers, encodes in the Confluent wire format and decodes', async () => {
    const { id } = await client.register(avro(customerV1), { subject: 'customers-value' });
    expect(id).toBe(1);
    const bytes = await client.encode(id, { id: 'c1', name: 'Ada' });
    expect(bytes[0]).toBe(0);
    expect(bytes.readInt32BE(1)).toBe(id);
    // A fresh client knows nothing: it must fetch the writer schema by id.
    const other = new SchemaRegistry({ host: registry.url });
    expect({ ...(await other.decode(bytes)) }).toEqual({ id: 'c1', name: 'Ada' });
  });

  test('registering the same schema again answers the same id, and another subject shares it', async () => {
    const first = await client.register(avro(customerV1), { subject: 'a-value' });
    const again = await client.register(avro(customerV1), { subject: 'a-value' });
    const elsewhere = await client.register(avro(customerV1), { subject: 'b-value' });
    expect(again.id).toBe(first.id);
    expect(elsewhere.id).toBe(first.id);
    expect(await client.getRegistryIdBySchema('b-value', avro(customerV1))).toBe(first.id);
    expect(await client.getRegistryId('a-value', 1)).toBe(first.id);
  });

  test('BACKWARD evolution: an added field with a default is accepted and old data reads with the new schema', async () => {
    const v1 = await client.register(avro(customerV1), { subject: 'customers-value', compatibility: COMPATIBILITY.BACKWARD });
    const oldBytes = await client.encode(v1.id, { id: 'c1', name: 'Ada' });
    const v2 = await client.register(avro(customerV2), { subject: 'customers-value', compatibility: COMPATIBILITY.BACKWARD });
    expect(v2.id).not.toBe(v1.id);
    expect(await client.getLatestSchemaId('customers-value')).toBe(v2.id);
    const read = await client.decode(oldBytes, { [SchemaType.AVRO]: { readerSchema: customerV2 } } as never);
    expect({ ...read }).toEqual({ id: 'c1', name: 'Ada', tier: 'basic' });
  });

  test('BACKWARD evolution: an added field without a default is refused with 409 and the registry message', async () => {
    await client.register(avro(customerV1), { subject: 'customers-value' });
    const refused = client.register(avro(customerBroken), { subject: 'customers-value' });
    await expect(refused).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('Schema being registered is incompatible with an earlier schema for subject "customers-value"'),
    });
    expect(await client.getLatestSchemaId('customers-value')).toBe(1);
  });

  test('the client refuses a subject whose configured level differs from the one it asks for', async () => {
    await client.register(avro(customerV1), { subject: 'customers-value', compatibility: COMPATIBILITY.FULL });
    await expect(client.register(avro(customerV2), { subject: 'customers-value', compatibility: COMPATIBILITY.BACKWARD })).rejects.toThrow(
      /Compatibility does not match the configuration \(BACKWARD != FULL\)/,
    );
  });

  test('every deltabroker record schema registers and round-trips a sample value', async () => {
    const schemas = loadSchemas();
    for (const [name, schema] of Object.entries(schemas)) {
      const { id } = await client.register(avro(schema.definition), { subject: `${name}-value` });
      const sample = schema.type.random();
      const decoded: unknown = await client.decode(await client.encode(id, sample));
      expect(schema.type.equals(schema.type)).toBe(true);
      expect(schema.type.compare(decoded, sample)).toBe(0);
    }
  });

  test('schemas, versions and configuration survive a restart on the same data directory', async () => {
    const v1 = await client.register(avro(customerV1), { subject: 'customers-value' });
    const v2 = await client.register(avro(customerV2), { subject: 'customers-value' });
    await registry.stop();
    registry = await startEmbeddedRegistry({ dataDir, port: 0 });
    const fresh = new SchemaRegistry({ host: registry.url });
    expect(await fresh.getLatestSchemaId('customers-value')).toBe(v2.id);
    expect(await fresh.getRegistryId('customers-value', 1)).toBe(v1.id);
    // The subject kept its BACKWARD level: the broken schema is still refused, and new ids continue.
    await expect(fresh.register(avro(customerBroken), { subject: 'customers-value' })).rejects.toMatchObject({ status: 409 });
    const other = await fresh.register(avro({ type: 'record', name: 'X', fields: [] }), { subject: 'x-value' });
    expect(other.id).toBe(v2.id + 1);
  });
});
