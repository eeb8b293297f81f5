import { post, startTestService, type TestService } from '../../support/service';

/** Rotation, rewrap, minimum decryption version, session expiry and use caps. */
describe('keyring rotation, rewrap and sessions', () => {
  let t: TestService;
  let admin: string;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_SESSION_MAX_USES: '2' } });
    admin = await t.token(['admin']);
  });
  afterAll(() => t.stop());

  const dispatch = (body: unknown) => post(`${t.url}/dispatch`, body, { authorization: `Bearer ${admin}` });
  const encrypt = async (method: string, payload: string, extra: object = {}) => {
    const res = await dispatch({ dispatch: { operation: 'encrypt', method, ...extra }, payload });
    expect(res.status).toBe(200);
    return res.body.ciphertext as string;
  };
  const decrypt = (ciphertext: string) => dispatch({ dispatch: { operation: 'decrypt' }, payload: ciphertext });

  test.each(['aes', 'hsm'] as const)('%s: after rotation new ciphertexts use the new version and old ones still decrypt', async (family) => {
    const before = await encrypt(family, 'old data');
    const versionBefore = Number(/:v(\d+):/.exec(before)?.[1]);
    const rotated = await t.service.keyring.rotate('acme', family);
    expect(rotated).toBe(versionBefore + 1);
    const after = await encrypt(family, 'new data');
    expect(after).toContain(`:default:v${rotated}:`);
    expect((await decrypt(before)).body.payload).toBe('old data');
    expect((await decrypt(after)).body.payload).toBe('new data');
  });

  test('rewrap moves a ciphertext to the newest version without returning plaintext', async () => {
    const old = await encrypt('aes', 'rewrap me');
    const newest = await t.service.keyring.rotate('acme', 'aes');
    const res = await dispatch({ dispatch: { operation: 'rewrap' }, payload: old });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['ciphertext', 'keyRef', 'keyVersion', 'method']);
    expect(res.body.keyVersion).toBe(newest);
    expect((await decrypt(res.body.ciphertext as string)).body.payload).toBe('rewrap me');
  });

  test('versions below the minimum decryption version are refused', async () => {
    const old = await encrypt('aes', 'retired');
    const oldVersion = Number(/:v(\d+):/.exec(old)?.[1]);
    const newest = await t.service.keyring.rotate('acme', 'aes');
    await t.service.keyring.setMinDecryptionVersion('acme', 'aes', 'default', newest);
    const res = await decrypt(old);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'DB_KEY_VERSION_DISABLED' });
    expect(oldVersion).toBeLessThan(newest);
    await t.service.keyring.setMinDecryptionVersion('acme', 'aes', 'default', 1);
  });

  test('a session stops encrypting at its use cap and after expiry; its ciphertexts still decrypt', async () => {
    const created = await dispatch({ dispatch: { operation: 'createSession', method: 'aes' } });
    const sessionId = created.body.sessionId as string;
    const c1 = await encrypt('aes', 'first', { sessionId });
    await encrypt('aes', 'second', { sessionId });
    const third = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes', sessionId }, payload: 'third' });
    expect(third.status).toBe(400);
    expect(third.body).toMatchObject({ code: 'DB_SESSION_INVALID', field: 'dispatch.sessionId' });
    expect((await decrypt(c1)).body.payload).toBe('first');

    const other = await dispatch({ dispatch: { operation: 'createSession', method: 'aes' } });
    await t.service.sql.query("update crypto_sessions set expires_at = now() - interval '1 second' where id = $1", [other.body.sessionId]);
    const expired = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes', sessionId: other.body.sessionId }, payload: 'late' });
    expect(expired.body.code).toBe('DB_SESSION_INVALID');
  });

  test('unknown sessions and HSM sessions are refused', async () => {
    const unknown = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes', sessionId: 'no-such-session' }, payload: 'x' });
    expect(unknown.body).toMatchObject({ code: 'DB_SESSION_INVALID', field: 'dispatch.sessionId' });
    // An id no session can have, U+0000 included (which PostgreSQL's text cannot hold), is as unknown: not a 500.
    for (const sessionId of ['s\u0000', 'a b']) {
      const impossible = await dispatch({ dispatch: { operation: 'encrypt', method: 'aes', sessionId }, payload: 'x' });
      expect([impossible.status, impossible.body]).toEqual([400, expect.objectContaining({ code: 'DB_SESSION_INVALID', field: 'dispatch.sessionId' })]);
    }
    const hsmSession = await dispatch({ dispatch: { operation: 'createSession', method: 'hsm' } });
    expect(hsmSession.body).toMatchObject({ code: 'DB_VALIDATION', field: 'dispatch.method', rule: 'aes-only' });
  });

  test('admins rotate and list keys over HTTP; others may not', async () => {
    const auth = { authorization: `Bearer ${admin}` };
    const before = await fetch(`${t.url}/keys`, { headers: auth }).then((r) => r.json() as Promise<{ keys: { family: string; latestVersion: number }[] }>);
    const hsmBefore = before.keys.find((k) => k.family === 'hsm')?.latestVersion ?? 0;
    const rotated = await post(`${t.url}/keys/rotate`, { method: 'hsm' }, auth);
    expect(rotated.body).toMatchObject({ tenant: 'acme', key: 'default', family: 'hsm', version: hsmBefore + 1 });
    const writer = await t.token(['writer']);
    const refused = await post(`${t.url}/keys/rotate`, { method: 'aes' }, { authorization: `Bearer ${writer}` });
    expect(refused.status).toBe(403);
  });

  test('every encryption under a cached key is counted once, on the version it used', async () => {
    await encrypt('aes', 'load the key');
    await t.service.keyring.flush();
    const countOf = async (version: number) =>
      (await t.service.keyring.list('acme')).find((k) => k.family === 'aes' && k.name === 'default')?.versions.find((v) => v.version === version)
        ?.encryptions ?? -1;
    const version = Number(/:v(\d+):/.exec(await encrypt('aes', 'which version'))?.[1]);
    const before = await countOf(version);
    const ciphertexts = await Promise.all(Array.from({ length: 25 }, (_, i) => encrypt('aes', `counted ${i}`)));
    expect(ciphertexts.every((c) => c.includes(`:default:v${version}:`))).toBe(true);
    expect(await countOf(version)).toBe(before + 25);
  });

  test('keys list shows versions and counts, never material', async () => {
    await t.service.keyring.flush();
    const keys = await t.service.keyring.list('acme');
    const aes = keys.find((k) => k.family === 'aes' && k.name === 'default');
    expect(aes?.latestVersion).toBeGreaterThanOrEqual(3);
    expect(aes?.versions.reduce((n, v) => n + v.encryptions, 0)).toBeGreaterThan(0);
    expect(JSON.stringify(keys)).not.toMatch(/material|wrapped/);
  });
});
