/**
 * The service's registry requests outside its client (the readiness check, writer schemas by id) against the
 * embedded registry behind a server that drops connections: one dropped connection is retried, more fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { ValueCodec } from '../../../src/log/codec';
import { registryAcceptsCheck } from '../../../src/log/registry-readiness';
import { registryWriterSchemas } from '../../../src/log/registry-schemas';
import { loadSchemas } from '../../../src/log/schemas';
import { startDroppingProxy, type DroppingProxy } from '../../support/dropping-proxy';

const schemas = loadSchemas();
let dataDir: string;
let registry: EmbeddedRegistry;
let schemaId: number;
const proxies: DroppingProxy[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'registry-fetch-'));
  registry = await startEmbeddedRegistry({ dataDir, port: 0 });
  schemaId = await new ValueCodec({ registryUrl: registry.url }).schemaId('deltas-value', schemas.DeltaEnvelope);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await registry.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const proxy = async (drops: number): Promise<DroppingProxy> => {
  const started = await startDroppingProxy(registry.url, drops);
  proxies.push(started);
  return started;
};

test('the readiness check and a writer schema look-up survive one dropped connection each', async () => {
  const flaky = await proxy(1);
  await expect(registryAcceptsCheck({ registryUrl: flaky.url, subject: 'deltas-value', schema: schemas.DeltaEnvelope })()).resolves.toBeUndefined();
  const definition = await registryWriterSchemas({ registryUrl: flaky.url })(schemaId);
  expect(definition).toMatchObject({ type: 'record', name: 'DeltaEnvelope' });
  expect(flaky.seen).toEqual([
    'POST /compatibility/subjects/deltas-value/versions/latest',
    'POST /compatibility/subjects/deltas-value/versions/latest',
    `GET /schemas/ids/${schemaId}`,
    `GET /schemas/ids/${schemaId}`,
  ]);
});

test('a registry that keeps dropping the connection fails the check after the one retry', async () => {
  const dead = await proxy(Number.POSITIVE_INFINITY);
  await expect(registryAcceptsCheck({ registryUrl: dead.url, subject: 'deltas-value', schema: schemas.DeltaEnvelope })()).rejects.toThrow();
  await expect(registryWriterSchemas({ registryUrl: dead.url })(schemaId)).rejects.toThrow();
  expect(dead.seen).toHaveLength(4);
});
