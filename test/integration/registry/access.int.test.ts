/**
 * The embedded registry with credentials: reads open, mutations behind HTTP basic auth, the owner's subjects
 * and the global settings read-only to every other user. Spoken over plain HTTP as curl would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';

const CT = 'application/vnd.schemaregistry.v1+json';
const SCHEMA = JSON.stringify({ type: 'record', name: 'R', namespace: 't', fields: [{ name: 'a', type: 'string' }] });
const BREAKING = JSON.stringify({ type: 'record', name: 'R', namespace: 't', fields: [{ name: 'b', type: 'int' }] });
const USERS = { deltabroker: 'service-pw', client: 'client-pw' };
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const SERVICE = basic('deltabroker', USERS.deltabroker);
const CLIENT = basic('client', USERS.client);

let dataDir: string;
let registry: EmbeddedRegistry;

async function call(method: string, url: string, body?: unknown, authorization?: string): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = CT;
  if (authorization) headers.authorization = authorization;
  const res = await fetch(registry.url + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'registry-access-'));
  registry = await startEmbeddedRegistry({
    dataDir,
    port: 0,
    access: { users: USERS, owner: 'deltabroker', ownedSubject: (s) => s === 'deltas-value' || s.endsWith('.events-value') },
  });
  expect((await call('POST', '/subjects/deltas-value/versions', { schema: SCHEMA }, SERVICE)).status).toBe(200);
});
afterAll(async () => {
  await registry.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('without credentials: reads answer, mutations are 401 and change nothing', async () => {
  expect((await call('GET', '/subjects')).json).toEqual(['deltas-value']);
  for (const [method, url, body] of [
    ['PUT', '/config/deltas-value', { compatibility: 'NONE' }],
    ['PUT', '/config', { compatibility: 'NONE' }],
    ['DELETE', '/subjects/deltas-value', undefined],
    ['POST', '/subjects/deltas-value/versions', { schema: BREAKING }],
    ['POST', '/subjects/mine-value/versions', { schema: SCHEMA }],
  ] as const) {
    const answer = await call(method, url, body);
    expect([method, url, answer.status, (answer.json as { error_code: number }).error_code]).toEqual([method, url, 401, 401]);
  }
  expect((await call('GET', '/subjects/deltas-value/versions')).json).toEqual([1]);
  expect((await call('GET', '/config/deltas-value?defaultToGlobal=true')).json).toEqual({ compatibilityLevel: 'BACKWARD' });
});

test("registering a schema the subject already has needs no credentials (serializers' auto-registration)", async () => {
  expect(await call('POST', '/subjects/deltas-value/versions', { schema: SCHEMA })).toMatchObject({ status: 200, json: { id: 1 } });
});

test("another user may not change the service's subjects or the global settings, but its own subjects", async () => {
  for (const [method, url, body] of [
    ['PUT', '/config/deltas-value', { compatibility: 'NONE' }],
    ['PUT', '/config', { compatibility: 'NONE' }],
    ['DELETE', '/subjects/deltas-value', undefined],
    ['POST', '/subjects/acme.merchant_account.events-value/versions', { schema: SCHEMA }],
  ] as const) {
    expect([url, (await call(method, url, body, CLIENT)).status]).toEqual([url, 403]);
  }
  expect((await call('POST', '/subjects/mine-value/versions', { schema: SCHEMA }, CLIENT)).status).toBe(200);
  expect((await call('PUT', '/config/mine-value', { compatibility: 'NONE' }, CLIENT)).status).toBe(200);
  expect((await call('POST', '/subjects/x-value/versions', { schema: SCHEMA }, basic('client', 'wrong'))).status).toBe(401);
  expect((await call('GET', '/subjects')).json).toEqual(['deltas-value', 'mine-value']);
});

test('the owner may change its subjects', async () => {
  expect((await call('PUT', '/config/deltas-value', { compatibility: 'FULL' }, SERVICE)).status).toBe(200);
});
