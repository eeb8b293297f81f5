/**
 * The embedded registry's REST API, spoken over plain HTTP the way any Confluent client (Java, Go, Python,
 * curl) speaks it: paths, bodies, content type and `{ error_code, message }` errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';

const CT = 'application/vnd.schemaregistry.v1+json';
const rec = (fields: object[]) => JSON.stringify({ type: 'record', name: 'R', namespace: 't', fields });
const V1 = rec([{ name: 'a', type: 'string' }]);
const V2 = rec([
  { name: 'a', type: 'string' },
  { name: 'b', type: 'int', default: 0 },
]);
const REQUIRED_B = rec([
  { name: 'a', type: 'string' },
  { name: 'b', type: 'int' },
]);
const ONLY_B = rec([{ name: 'b', type: 'int', default: 0 }]);

let dataDir: string;
let registry: EmbeddedRegistry;

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; type: string | null; json: unknown }> {
  const res = await fetch(registry.url + url, {
    method,
    headers: body === undefined ? {} : { 'content-type': CT },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}
const register = (subject: string, schema: string) => call('POST', `/subjects/${encodeURIComponent(subject)}/versions`, { schema });

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'registry-rest-'));
  registry = await startEmbeddedRegistry({ dataDir, port: 0 });
});
afterEach(async () => {
  await registry.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('subjects, versions and ids', () => {
  test('register answers {id}; subjects, versions, latest and lookups answer like Confluent', async () => {
    expect(await register('s-value', V1)).toEqual({ status: 200, type: CT, json: { id: 1 } });
    expect((await register('s-value', V2)).json).toEqual({ id: 2 });
    expect((await call('GET', '/subjects')).json).toEqual(['s-value']);
    expect((await call('GET', '/subjects/s-value/versions')).json).toEqual([1, 2]);
    expect((await call('GET', '/subjects/s-value/versions/latest')).json).toEqual({ subject: 's-value', version: 2, id: 2, schema: V2 });
    expect((await call('GET', '/subjects/s-value/versions/1')).json).toEqual({ subject: 's-value', version: 1, id: 1, schema: V1 });
    expect((await call('GET', '/subjects/s-value/versions/-1')).json).toMatchObject({ version: 2 });
    expect((await call('GET', '/subjects/s-value/versions/2/schema')).json).toEqual(JSON.parse(V2));
    expect((await call('GET', '/schemas/ids/1')).json).toEqual({ schema: V1 });
    expect((await call('GET', '/schemas/ids/2/versions')).json).toEqual([{ subject: 's-value', version: 2 }]);
    expect((await call('GET', '/schemas/types')).json).toEqual(['AVRO']);
    expect((await call('POST', '/subjects/s-value', { schema: V1 })).json).toEqual({ subject: 's-value', version: 1, id: 1, schema: V1 });
  });

  test('a subject name with slashes and dots travels URL-encoded', async () => {
    const subject = 'acme.customer/events-value';
    expect((await register(subject, V1)).json).toEqual({ id: 1 });
    expect((await call('GET', `/subjects/${encodeURIComponent(subject)}/versions/latest`)).json).toMatchObject({ subject, id: 1 });
  });

  test('whitespace does not make a schema new: the stored text is compact JSON', async () => {
    await register('s-value', V1);
    const spaced = JSON.stringify(JSON.parse(V1), null, 2);
    expect((await register('s-value', spaced)).json).toEqual({ id: 1 });
    expect((await call('GET', '/subjects/s-value/versions')).json).toEqual([1]);
  });

  test.each([
    ['GET', '/subjects/nope/versions', undefined, 404, 40401, "Subject 'nope' not found."],
    ['GET', '/subjects/s-value/versions/9', undefined, 404, 40402, 'Version 9 not found.'],
    ['GET', '/subjects/s-value/versions/zero', undefined, 422, 42202, undefined],
    ['GET', '/schemas/ids/77', undefined, 404, 40403, 'Schema 77 not found'],
    ['POST', '/subjects/s-value', { schema: ONLY_B }, 404, 40403, 'Schema not found'],
    ['POST', '/subjects/s-value/versions', { schema: '{"type":"record"' }, 422, 42201, undefined],
    ['POST', '/subjects/s-value/versions', { schema: '"string"', schemaType: 'PROTOBUF' }, 422, 42201, undefined],
    ['POST', '/subjects/s-value/versions', { schema: '{"type":"nosuchtype"}' }, 422, 42201, undefined],
    ['PUT', '/config', { compatibility: 'SIDEWAYS' }, 422, 42203, undefined],
    ['GET', '/config/s-value', undefined, 404, 40408, "Subject 's-value' does not have subject-level compatibility configured"],
    ['GET', '/no/such/route', undefined, 404, 404, 'HTTP 404 Not Found'],
  ])('%s %s answers %d with error_code %d', async (method, url, body, status, code, message) => {
    await register('s-value', V1);
    const res = await call(method, url, body);
    expect(res.status).toBe(status);
    expect(res.type).toBe(CT);
    expect(res.json).toEqual({ error_code: code, message: message ?? expect.any(String) });
  });

  test('a malformed JSON body is a 400 in the Confluent error shape', async () => {
    const res = await fetch(`${registry.url}/subjects/s/versions`, { method: 'POST', headers: { 'content-type': CT }, body: '{nope' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error_code: 400, message: expect.any(String) });
  });
});

describe('deletion', () => {
  test('soft delete hides a version, permanent delete needs a soft delete first', async () => {
    await register('s-value', V1);
    await register('s-value', V2);
    expect((await call('DELETE', '/subjects/s-value/versions/2?permanent=true')).json).toMatchObject({ error_code: 40407 });
    expect(await call('DELETE', '/subjects/s-value/versions/2')).toMatchObject({ status: 200, json: 2 });
    expect((await call('GET', '/subjects/s-value/versions')).json).toEqual([1]);
    expect((await call('GET', '/subjects/s-value/versions?deleted=true')).json).toEqual([1, 2]);
    expect((await call('DELETE', '/subjects/s-value/versions/2')).json).toMatchObject({ error_code: 40406 });
    expect((await call('DELETE', '/subjects/s-value/versions/2?permanent=true')).json).toBe(2);
    expect((await call('GET', '/subjects/s-value/versions?deleted=true')).json).toEqual([1]);
    // Ids are never reused and schema 2 can still be fetched by id (old records on the log name it).
    expect((await call('GET', '/schemas/ids/2')).json).toEqual({ schema: V2 });
  });

  test('deleting a subject answers its versions; the same schema registered again gets a new version and its old id', async () => {
    await register('s-value', V1);
    await register('s-value', V2);
    expect((await call('DELETE', '/subjects/s-value')).json).toEqual([1, 2]);
    expect((await call('GET', '/subjects')).json).toEqual([]);
    expect((await call('GET', '/subjects?deleted=true')).json).toEqual(['s-value']);
    expect((await call('DELETE', '/subjects/s-value')).json).toMatchObject({ error_code: 40404 });
    expect((await register('s-value', V1)).json).toEqual({ id: 1 });
    expect((await call('GET', '/subjects/s-value/versions')).json).toEqual([3]);
  });

  test('a permanently deleted subject starts again at version 1', async () => {
    await register('s-value', V1);
    expect((await call('DELETE', '/subjects/s-value?permanent=true')).json).toMatchObject({ error_code: 40405 });
    await call('DELETE', '/subjects/s-value');
    expect((await call('DELETE', '/subjects/s-value?permanent=true')).json).toEqual([1]);
    expect((await call('GET', '/subjects/s-value/versions')).json).toMatchObject({ error_code: 40401 });
    await register('s-value', V2);
    expect((await call('GET', '/subjects/s-value/versions/latest')).json).toEqual({ subject: 's-value', version: 1, id: 2, schema: V2 });
  });
});

describe('configuration and compatibility', () => {
  test('global and subject levels: GET/PUT/DELETE /config, defaultToGlobal', async () => {
    expect((await call('GET', '/config')).json).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await call('PUT', '/config', { compatibility: 'full' })).json).toEqual({ compatibility: 'FULL' });
    expect((await call('GET', '/config')).json).toEqual({ compatibilityLevel: 'FULL' });
    expect((await call('GET', '/config/s-value?defaultToGlobal=true')).json).toEqual({ compatibilityLevel: 'FULL' });
    expect((await call('PUT', '/config/s-value', { compatibility: 'NONE' })).json).toEqual({ compatibility: 'NONE' });
    expect((await call('GET', '/config/s-value')).json).toEqual({ compatibilityLevel: 'NONE' });
    expect((await call('DELETE', '/config/s-value')).json).toEqual({ compatibilityLevel: 'NONE' });
    expect((await call('GET', '/config/s-value')).status).toBe(404);
  });

  test('registration under BACKWARD refuses an added field without default: 409, error_code 409', async () => {
    await register('s-value', V1);
    const res = await register('s-value', REQUIRED_B);
    expect(res.status).toBe(409);
    expect(res.json).toEqual({
      error_code: 409,
      message: expect.stringMatching(/^Schema being registered is incompatible with an earlier schema for subject "s-value", details: /),
    });
  });

  test.each([
    ['NONE', ONLY_B, true],
    ['BACKWARD', V2, true],
    ['BACKWARD', REQUIRED_B, false],
    ['FORWARD', REQUIRED_B, true],
    ['FORWARD', ONLY_B, false],
    ['FULL', V2, true],
    ['FULL', REQUIRED_B, false],
    ['BACKWARD_TRANSITIVE', V2, true],
    ['FORWARD_TRANSITIVE', ONLY_B, false],
    ['FULL_TRANSITIVE', REQUIRED_B, false],
  ])('POST /compatibility under %s answers is_compatible = %s', async (level, candidate, ok) => {
    await register('s-value', V1);
    await call('PUT', '/config/s-value', { compatibility: level });
    const res = await call('POST', '/compatibility/subjects/s-value/versions/latest?verbose=true', { schema: candidate });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ is_compatible: ok });
    expect((res.json as { messages: string[] }).messages.length === 0).toBe(ok);
    const plain = await call('POST', '/compatibility/subjects/s-value/versions/1', { schema: candidate });
    expect(plain.json).toEqual({ is_compatible: ok });
  });

  test('transitive levels check every live version when registering; plain ones only the latest', async () => {
    const v1 = rec([{ name: 'a', type: 'int' }]);
    const v2 = rec([
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int', default: 0 },
    ]);
    const candidate = rec([
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int' },
    ]);
    await call('PUT', '/config/t-value', { compatibility: 'BACKWARD_TRANSITIVE' });
    await register('t-value', v1);
    await register('t-value', v2);
    expect((await call('POST', '/compatibility/subjects/t-value/versions', { schema: candidate })).json).toEqual({ is_compatible: false });
    expect((await register('t-value', candidate)).status).toBe(409);
    await call('PUT', '/config/t-value', { compatibility: 'BACKWARD' });
    expect((await register('t-value', candidate)).json).toEqual({ id: 3 });
  });

  test('compatibility against a subject or version that does not exist is a 404', async () => {
    expect((await call('POST', '/compatibility/subjects/none/versions/latest', { schema: V1 })).json).toMatchObject({ error_code: 40401 });
    await register('s-value', V1);
    expect((await call('POST', '/compatibility/subjects/s-value/versions/5', { schema: V1 })).json).toMatchObject({ error_code: 40402 });
  });
});

describe('durability', () => {
  test('deletions and levels survive a restart', async () => {
    await register('s-value', V1);
    await register('s-value', V2);
    await call('DELETE', '/subjects/s-value/versions/1');
    await call('PUT', '/config', { compatibility: 'NONE' });
    await registry.stop();
    registry = await startEmbeddedRegistry({ dataDir, port: 0 });
    expect((await call('GET', '/subjects/s-value/versions')).json).toEqual([2]);
    expect((await call('GET', '/config')).json).toEqual({ compatibilityLevel: 'NONE' });
    expect((await register('s-value', ONLY_B)).json).toEqual({ id: 3 });
  });
});
