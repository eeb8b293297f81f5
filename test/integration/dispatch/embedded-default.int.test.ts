import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { post, startTestService, type TestService } from '../../support/service';

/** The embedded default: a PostgreSQL server the service starts in its own data directory (no DATABASE_URL). */
describe('encryption dispatch on the embedded PostgreSQL server', () => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ store: 'embedded' });
  }, 60_000);
  afterAll(() => t?.stop());

  test('encrypts, rotates and decrypts with the keyring on the embedded server', async () => {
    const token = await t.token(['admin']);
    const auth = { authorization: `Bearer ${token}` };
    const first = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'embedded' }, auth);
    expect(first.body.ciphertext).toMatch(/^aes256skv1:default:v1:/);
    expect(await t.service.keyring.rotate('acme', 'aes')).toBe(2);
    const decrypted = await post(`${t.url}/dispatch`, { dispatch: { operation: 'decrypt' }, payload: first.body.ciphertext }, auth);
    expect(decrypted.body.payload).toBe('embedded');
    const ready = (await (await fetch(`${t.url}/ready`)).json()) as { checks: { name: string; status: string }[] };
    expect(ready.checks).toContainEqual(expect.objectContaining({ name: 'postgres', status: 'up' }));
  });

  test('the server lives in <data dir>/postgres and an operator reaches it with the password file', async () => {
    const cluster = path.join(t.config.dataDir, 'postgres');
    expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
    expect(t.service.postgresUrl).toMatch(/^postgres:\/\/deltabroker@127\.0\.0\.1:\d+\/deltabroker$/);
    expect(t.logLines.join('\n')).not.toContain(readFileSync(path.join(t.config.dataDir, 'postgres.password'), 'utf8').trim());
    const url = new URL(t.service.postgresUrl);
    url.password = readFileSync(path.join(t.config.dataDir, 'postgres.password'), 'utf8').trim();
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const keys = await client.query<{ n: string }>('select count(*) as n from crypto_key_versions where tenant = $1', ['acme']);
      expect(Number(keys.rows[0]?.n)).toBe(2);
    } finally {
      await client.end();
    }
  });
});
