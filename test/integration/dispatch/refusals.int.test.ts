import { readFileSync } from 'node:fs';
import path from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import { post, startTestService, type TestService } from '../../support/service';

/** Bad input, authentication and authorisation: each refusal is problem+json naming field, rule and stage. */
describe('POST /dispatch refusals', () => {
  let t: TestService;
  let writer: string;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_MAX_PAYLOAD_BYTES: '1024', DELTABROKER_HTTP_BODY_LIMIT_BYTES: '65536' } });
    writer = await t.token(['writer']);
  });
  afterAll(() => t.stop());

  const dispatch = (body: unknown, headers: Record<string, string> = {}) => post(`${t.url}/dispatch`, body, { authorization: `Bearer ${writer}`, ...headers });

  test.each([
    ['an unknown operation', { dispatch: { operation: 'shred', method: 'aes' }, payload: 'x' }, 'DB_VALIDATION', 'dispatch.operation'],
    ['an unknown method', { dispatch: { operation: 'encrypt', method: 'des' }, payload: 'x' }, 'DB_UNKNOWN_METHOD', 'dispatch.method'],
    ['a missing method', { dispatch: { operation: 'encrypt' }, payload: 'x' }, 'DB_VALIDATION', 'dispatch.method'],
    ['a missing payload', { dispatch: { operation: 'encrypt', method: 'aes' } }, 'DB_VALIDATION', 'payload'],
    ['a payload of the wrong type', { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 42 }, 'DB_VALIDATION', 'payload'],
    ['a missing dispatch', { payload: 'x' }, 'DB_VALIDATION', 'dispatch'],
    ['an unknown field', { dispatch: { operation: 'encrypt', method: 'aes', colour: 'red' }, payload: 'x' }, 'DB_VALIDATION', 'dispatch.colour'],
    ['an unknown encoding', { dispatch: { operation: 'encrypt', method: 'aes', encoding: 'rot13' }, payload: 'x' }, 'DB_VALIDATION', 'dispatch.encoding'],
    ['bad base64', { dispatch: { operation: 'encrypt', method: 'aes', encoding: 'base64' }, payload: 'no*base64!' }, 'DB_VALIDATION', 'payload'],
    ['bad hex', { dispatch: { operation: 'encrypt', method: 'aes', encoding: 'hex' }, payload: 'abc' }, 'DB_VALIDATION', 'payload'],
    ['keyAlias with aes', { dispatch: { operation: 'encrypt', method: 'aes', keyAlias: 'k' }, payload: 'x' }, 'DB_VALIDATION', 'dispatch.keyAlias'],
    ['sessionId with hsm', { dispatch: { operation: 'encrypt', method: 'hsm', sessionId: 's' }, payload: 'x' }, 'DB_VALIDATION', 'dispatch.sessionId'],
    ['a decrypt of non-ciphertext', { dispatch: { operation: 'decrypt' }, payload: 'hello' }, 'DB_VALIDATION', 'payload'],
  ])('%s → 400 naming the field', async (_name, body, code, field) => {
    const admin = await t.token(['admin']);
    const res = await dispatch(body, { authorization: `Bearer ${admin}` });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ code, field, status: 400 });
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.stage).toBeDefined();
  });

  test('malformed JSON → 400 problem+json', async () => {
    const res = await dispatch('{"dispatch": {', {});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'DB_BAD_REQUEST', field: 'body', stage: 'http' });
  });

  test('a payload over the documented limit → 413', async () => {
    const res = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x'.repeat(1025) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'DB_PAYLOAD_TOO_LARGE', field: 'payload', limit: 1024 });
  });

  test('a body over the HTTP limit → 413', async () => {
    const res = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x'.repeat(70_000) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('DB_PAYLOAD_TOO_LARGE');
  });

  test('headers over the limit → 431 problem+json', async () => {
    const res = await fetch(`${t.url}/dispatch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'x-filler': 'x'.repeat(20_000) },
      body: '{}',
    });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as { code: string }).code).toBe('DB_HEADERS_TOO_LARGE');
  });

  test('a body that is not JSON → 415', async () => {
    const res = await fetch(`${t.url}/dispatch`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'text/plain' }, body: 'hi' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe('DB_UNSUPPORTED_MEDIA_TYPE');
  });

  test('no token, a garbage token, a forged token, one without expiry and an expired token → 401', async () => {
    const body = { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' };
    const forged = await new SignJWT({ tenant: 'acme', roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('mallory')
      .setIssuer(t.config.auth.issuer)
      .setAudience(t.config.auth.audience)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-key-not-the-key-not-the-key'));
    const devKey = JSON.parse(readFileSync(path.join(t.config.dataDir, 'dev-issuer.jwk.json'), 'utf8')) as JWK;
    const neverExpires = await new SignJWT({ tenant: 'acme', roles: ['admin'] })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('mallory')
      .setIssuer(t.config.auth.issuer)
      .setAudience(t.config.auth.audience)
      .sign(await importJWK(devKey, 'ES256'));
    const noToken = await post(`${t.url}/dispatch`, body);
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toContain('Bearer');
    for (const token of ['garbage', forged, neverExpires]) {
      const res = await dispatch(body, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('DB_UNAUTHENTICATED');
    }
    const expired = await t.token(['admin'], { ttlSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 7000));
    const late = await dispatch(body, { authorization: `Bearer ${expired}` });
    expect(late.status).toBe(401);
    expect(late.body.detail).toContain('expired');
  }, 20_000);

  test('a role that may not use an operation → 403', async () => {
    const reader = await t.token(['reader']);
    const encrypted = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' });
    const asReader = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' }, { authorization: `Bearer ${reader}` });
    expect(asReader.status).toBe(403);
    const decryptAsWriter = await dispatch({ dispatch: { operation: 'decrypt' }, payload: encrypted.body.ciphertext });
    expect(decryptAsWriter.status).toBe(403);
    expect(decryptAsWriter.body).toMatchObject({ code: 'DB_FORBIDDEN', field: 'dispatch.operation', stage: 'auth' });
  });

  test('Request-ID is echoed, or generated when absent', async () => {
    const given = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' }, { 'request-id': 'req-123' });
    expect(given.headers.get('request-id')).toBe('req-123');
    const generated = await dispatch({ dispatch: { operation: 'encrypt', method: 'des' }, payload: 'x' });
    expect(generated.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.body.requestId).toBe(generated.headers.get('request-id'));
  });

  test('health needs no token; other methods on /dispatch → 405', async () => {
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: { name: string; status: string }[] }).checks).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'postgres', status: 'up' }), expect.objectContaining({ name: 'hsm', status: 'up' })]),
    );
    const get = await fetch(`${t.url}/dispatch`, { headers: { authorization: `Bearer ${writer}` } });
    expect(get.status).toBe(405);
  });
});
