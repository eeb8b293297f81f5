import { post, startTestService, type TestService } from '../../support/service';

/** Seed section 4.1: every encryption variant, each decrypted back, over real HTTP, Postgres and SoftHSM2. */
describe('POST /dispatch encrypt variants', () => {
  let t: TestService;
  let writer: string;
  let admin: string;

  beforeAll(async () => {
    t = await startTestService();
    writer = await t.token(['writer']);
    admin = await t.token(['admin']);
  });
  afterAll(() => t.stop());

  const dispatch = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    post(`${t.url}/dispatch`, body, { authorization: `Bearer ${token}`, ...headers });

  async function roundTrip(method: string, payload: string, extra: Record<string, string> = {}) {
    const encrypted = await dispatch(writer, { dispatch: { operation: 'encrypt', method, ...extra }, payload });
    expect(encrypted.status).toBe(200);
    const ciphertext = encrypted.body.ciphertext as string;
    const { sessionId: _s, keyAlias: _k, ...decryptExtra } = extra;
    const decrypted = await dispatch(admin, { dispatch: { operation: 'decrypt', ...decryptExtra }, payload: ciphertext });
    expect(decrypted.status).toBe(200);
    expect(decrypted.body.payload).toBe(payload);
    return encrypted.body;
  }

  test('aes256skv1 names itself, the default key and its version', async () => {
    const body = await roundTrip('aes256skv1', 'hello world');
    expect(body).toMatchObject({ method: 'aes256skv1', keyRef: 'default', keyVersion: 1 });
    expect(body.ciphertext).toMatch(/^aes256skv1:default:v1:[A-Za-z0-9_-]+$/);
  });

  test('the aes alias resolves to the newest AES method, never stored as the alias', async () => {
    const body = await roundTrip('aes', 'über ✓ text');
    expect(body.method).toBe('aes256skv1');
    expect(body.ciphertext).toMatch(/^aes256skv1:/);
  });

  test('two encryptions of the same text differ (random nonce)', async () => {
    const a = await roundTrip('aes', 'same');
    const b = await roundTrip('aes', 'same');
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  test.each(['base64', 'base64url', 'hex'])('aes with encoding %s round-trips binary bytes', async (encoding) => {
    const bytes = Buffer.from([0, 255, 1, 254, 128, 10, 13, 0xc3]);
    await roundTrip('aes', bytes.toString(encoding as BufferEncoding), { encoding });
  });

  test('aes with sessionId encrypts several payloads under one session key', async () => {
    const session = await dispatch(writer, { dispatch: { operation: 'createSession', method: 'aes' } });
    expect(session.status).toBe(201);
    const sessionId = session.body.sessionId as string;
    expect(Date.parse(session.body.expiresAt as string)).toBeGreaterThan(Date.now());
    const first = await roundTrip('aes', 'one', { sessionId });
    const second = await roundTrip('aes', 'two', { sessionId });
    expect(first.keyRef).toBe(`session.${sessionId}`);
    expect(second.ciphertext).toMatch(new RegExp(`^aes256skv1:session\\.${sessionId}:v1:`));
  });

  test('hsmv1 encrypts inside the HSM', async () => {
    const body = await roundTrip('hsmv1', 'card 4111');
    expect(body).toMatchObject({ method: 'hsmv1', keyRef: 'default', keyVersion: 1 });
  });

  test('the hsm alias resolves to hsmv1', async () => {
    const body = await roundTrip('hsm', 'secret');
    expect(body.ciphertext).toMatch(/^hsmv1:default:v1:/);
  });

  test('hsm with encoding', async () => {
    await roundTrip('hsm', Buffer.from('binary\u0000data').toString('base64'), { encoding: 'base64' });
  });

  test('hsm with a keyAlias configured in CRYPTO_CONFIG', async () => {
    await t.service.aliases.configure({ tenant: 'acme', alias: 'payments', family: 'hsm', keyLabel: 'acme-payments-key', enabled: true }, true);
    const body = await roundTrip('hsm', 'alias secret', { keyAlias: 'payments' });
    expect(body.ciphertext).toMatch(/^hsmv1:alias\.payments:v1:/);
  });

  test('an unknown, disabled or unrecognised keyAlias is refused, naming the field', async () => {
    await t.service.aliases.configure({ tenant: 'acme', alias: 'off', family: 'hsm', keyLabel: 'acme-off-key', enabled: false }, true);
    await t.service.aliases.configure({ tenant: 'acme', alias: 'ghost', family: 'hsm', keyLabel: 'no-such-label', enabled: true });
    for (const [alias, reason] of [
      ['nope', 'not configured'],
      ['off', 'disabled'],
      ['ghost', 'not recognised'],
    ] as const) {
      const res = await dispatch(writer, { dispatch: { operation: 'encrypt', method: 'hsm', keyAlias: alias }, payload: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'DB_UNKNOWN_KEY', field: 'dispatch.keyAlias' });
      expect(res.body.detail).toContain(reason);
    }
  });

  test('a ciphertext of one tenant does not decrypt for another', async () => {
    const body = await roundTrip('aes', 'tenant-bound');
    const other = await t.token(['admin'], { tenant: 'globex' });
    const res = await dispatch(other, { dispatch: { operation: 'decrypt' }, payload: body.ciphertext });
    expect(res.status).toBe(400);
    expect(res.body.code).toMatch(/DB_UNKNOWN_KEY|DB_DECRYPT_FAILED/);
  });

  test('a header swapped onto another body fails authentication', async () => {
    const body = await roundTrip('aes', 'bound header');
    const [method, , , data] = (body.ciphertext as string).split(':');
    await t.service.keyring.rotate('acme', 'aes');
    const forged = `${method}:default:v2:${data}`;
    const res = await dispatch(admin, { dispatch: { operation: 'decrypt' }, payload: forged });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('DB_DECRYPT_FAILED');
  });

  test('key material and payloads never appear in the logs', async () => {
    const secret = 'never-log-this-plaintext-123';
    await roundTrip('aes', secret);
    const logs = t.logLines.join('\n');
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(writer);
    expect(logs).toContain('"requestId"');
  });
});
