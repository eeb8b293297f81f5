/**
 * The adapter's value codec against the embedded registry: what it registers, and how it answers for
 * every kind of bad bytes without throwing. No broker needed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { frame, ValueCodec } from '../../../src/log/codec';
import { loadSchemas, recordSchema, type DeltaEnvelope } from '../../../src/log/schemas';
import { startDroppingProxy } from '../../support/dropping-proxy';

const schemas = loadSchemas();
const delta: DeltaEnvelope = {
  id: 'd-1',
  requestId: null,
  tenant: 'acme',
  entity: 'customer',
  operation: 'create',
  key: 'c-1',
  payload: '{"name":"Ada"}',
  actor: { user: 'u-1', roles: ['writer'] },
  origin: { datacenter: 'dc1' },
  occurredAt: 1767225600000,
  expectedVersion: 0,
  retryOf: null,
};

let dataDir: string;
let registry: EmbeddedRegistry;
let codec: ValueCodec;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'value-codec-'));
  registry = await startEmbeddedRegistry({ dataDir, port: 0 });
  codec = new ValueCodec({ registryUrl: registry.url });
});
afterAll(async () => {
  await registry.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('encode registers the schema under the subject once and frames the Avro bytes', async () => {
  const bytes = await codec.encode('deltas-value', schemas.DeltaEnvelope, delta);
  const again = await codec.encode('deltas-value', schemas.DeltaEnvelope, delta);
  expect(again.equals(bytes)).toBe(true);
  expect(bytes[0]).toBe(0);
  const versions = (await (await fetch(`${registry.url}/subjects/deltas-value/versions`)).json()) as number[];
  expect(versions).toEqual([1]);
  const decoded = await codec.decode(bytes);
  expect(decoded).toMatchObject({ ok: true, schemaId: bytes.readInt32BE(1) });
  expect(JSON.parse(JSON.stringify((decoded as { value: unknown }).value))).toEqual(delta);
});

test('a second codec finds the schema already registered instead of registering it again', async () => {
  const other = new ValueCodec({ registryUrl: registry.url });
  expect(await other.schemaId('deltas-value', schemas.DeltaEnvelope)).toBe(await codec.schemaId('deltas-value', schemas.DeltaEnvelope));
});

describe('bad bytes answer a reason, never an exception', () => {
  test.each<[string, () => Promise<Buffer | null>, string]>([
    ['a null value', async () => null, 'DECODE_EMPTY_VALUE'],
    ['a wrong magic byte', async () => Buffer.from([7, 0, 0, 0, 1, 2, 3]), 'DECODE_MAGIC_BYTE'],
    ['an unknown schema id', async () => frame(99999, Buffer.from([2, 65])), 'DECODE_UNKNOWN_SCHEMA'],
    ['truncated Avro', async () => (await codec.encode('deltas-value', schemas.DeltaEnvelope, delta)).subarray(0, 12), 'DECODE_INVALID_AVRO'],
    [
      'trailing bytes after the record',
      async () => Buffer.concat([await codec.encode('deltas-value', schemas.DeltaEnvelope, delta), Buffer.from([1, 2, 3])]),
      'DECODE_INVALID_AVRO',
    ],
    [
      'an enum index out of range',
      async () => {
        const id = await codec.schemaId('deltas-value', schemas.DeltaEnvelope);
        const good = schemas.DeltaEnvelope.type.toBuffer(delta);
        // id "d-1" (len 3 → 0x06 + 3 bytes), requestId null (0x00), tenant, entity, then the operation index.
        const opAt = 1 + 3 + 1 + 1 + 4 + 1 + 8;
        const bad = Buffer.from(good);
        bad[opAt] = 0x0a; // zigzag 5: there are only 3 symbols
        return frame(id, bad);
      },
      'DECODE_INVALID_AVRO',
    ],
    [
      'an int beyond 32 bits (avsc reads an int as a varint of any length)',
      async () => {
        const counted = recordSchema<{ n: number }>({ type: 'record', name: 'Counted', namespace: 't', fields: [{ name: 'n', type: 'int' }] });
        const id = await codec.schemaId('counted-value', counted);
        return frame(id, Buffer.from([0x80, 0x80, 0x80, 0x80, 0x20])); // zigzag 2^33: 2^32
      },
      'DECODE_INVALID_AVRO',
    ],
  ])('%s', async (_name, bytes, reason) => {
    const decoded = await codec.decode(await bytes());
    expect(decoded).toMatchObject({ ok: false, reason, message: expect.any(String) });
  });
});

test('a reader schema resolves older writers, and refuses writers it cannot read', async () => {
  const v1 = recordSchema<{ id: string }>({ type: 'record', name: 'Item', namespace: 't', fields: [{ name: 'id', type: 'string' }] });
  const v2 = recordSchema<{ id: string; size: number }>({
    type: 'record',
    name: 'Item',
    namespace: 't',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'size', type: 'int', default: 1 },
    ],
  });
  const strict = recordSchema<{ id: string; weight: number }>({
    type: 'record',
    name: 'Item',
    namespace: 't',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'weight', type: 'int' },
    ],
  });
  const bytes = await codec.encode('items-value', v1, { id: 'i-1' });
  const read = await codec.decode(bytes, v2);
  expect(read.ok && { ...(read.value as object) }).toEqual({ id: 'i-1', size: 1 });
  expect(await codec.decode(bytes, strict)).toMatchObject({ ok: false, reason: 'DECODE_INCOMPATIBLE_SCHEMA' });
});

test('a registry that drops the connection of each request once still gets the schema registered', async () => {
  const flaky = await startDroppingProxy(registry.url);
  try {
    const through = new ValueCodec({ registryUrl: flaky.url });
    const id = await through.schemaId('flaky-value', schemas.DeltaEnvelope);
    expect(id).toBe(await codec.schemaId('flaky-value', schemas.DeltaEnvelope));
    expect(flaky.seen.filter((r) => r.startsWith('POST /subjects/flaky-value/versions'))).toHaveLength(2);
    const fetched = await through.decode(await codec.encode('flaky-value', schemas.DeltaEnvelope, delta));
    expect(fetched).toMatchObject({ ok: true, schemaId: id });
  } finally {
    await flaky.close();
  }
});

test('an unreachable registry throws (the record is not at fault and must be read again)', async () => {
  const nowhere = new ValueCodec({ registryUrl: 'http://127.0.0.1:1' });
  await expect(nowhere.decode(frame(1, Buffer.from([2, 65])))).rejects.toThrow();
});
