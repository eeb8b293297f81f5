import { post, startTestService, type TestService } from '../../support/service';

/** The embedded default: PGlite in the data directory instead of a Postgres server. */
describe('encryption dispatch on embedded PGlite', () => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ store: 'pglite' });
  }, 60_000);
  afterAll(() => t.stop());

  test('encrypts, rotates and decrypts with the keyring in PGlite', async () => {
    const token = await t.token(['admin']);
    const auth = { authorization: `Bearer ${token}` };
    const first = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'embedded' }, auth);
    expect(first.body.ciphertext).toMatch(/^aes256skv1:default:v1:/);
    expect(await t.service.keyring.rotate('acme', 'aes')).toBe(2);
    const decrypted = await post(`${t.url}/dispatch`, { dispatch: { operation: 'decrypt' }, payload: first.body.ciphertext }, auth);
    expect(decrypted.body.payload).toBe('embedded');
    const ready = (await (await fetch(`${t.url}/ready`)).json()) as { checks: { name: string }[] };
    expect(ready.checks.map((c) => c.name)).toContain('pglite');
  });
});
