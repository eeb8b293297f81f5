import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { runningServerPort } from '../../src/store/embedded-postgres/embedded-postgres';
import { runCli } from '../support/cli-process';
import { post } from '../support/service';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { eventually } from '../support/topics';

/**
 * The embedded default (no DATABASE_URL): the service starts its own PostgreSQL server in the data directory.
 * It restarts on the same directory after SIGTERM and right after SIGKILL with everything written before, and
 * operator commands work beside it against the same server.
 */
describe('restarts of the embedded default', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  let auth: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-restart-'));
    env = {
      DELTABROKER_DATA_DIR: dataDir,
      DATABASE_URL: '',
      DELTABROKER_POSTGRES_PORT: '0',
      DELTABROKER_HTTP_PORT: String(await freePort()),
      DELTABROKER_KAFKA_PORT: String(await freePort()),
      DELTABROKER_REGISTRY_PORT: String(await freePort()),
    };
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const create = (key: string) =>
    post(`${service!.url}/`, { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: key, name: `name ${key}` } }, auth);
  const read = async (rql: string) =>
    (await post(`${service!.url}/`, { dispatch: { entity: 'merchant_account', operation: 'read' }, payload: rql }, auth)).body as {
      items?: { merchantId: string }[];
    };
  const keys = async () => await (await fetch(`${service!.url}/keys`, { headers: auth })).json();
  const keysOf = (r: { items?: { merchantId: string }[] }) => (r.items ?? []).map((i) => i.merchantId).sort();

  test('SIGTERM, then SIGKILL and a restart within 2 s: the data and the keyring are there', async () => {
    service = await startServiceProcess(env);
    const issuer = await loadDevIssuer(dataDir, 'deltabroker-dev', 'deltabroker');
    auth = { authorization: `Bearer ${await issuer.mint({ sub: 'ops', tenant: 'acme', roles: ['admin'] })}` };
    expect((await create('r-1')).status).toBe(201);
    const encrypted = await post(`${service.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'kept' }, auth);
    const keyring = await keys();

    await service.stop();
    expect(runningServerPort(dataDir)).toBeUndefined();
    service = await startServiceProcess(env);
    expect(
      keysOf(
        await eventually(
          () => read('eq(merchantId,r-1)'),
          (r) => keysOf(r).length === 1,
        ),
      ),
    ).toEqual(['r-1']);
    expect((await post(`${service.url}/dispatch`, { dispatch: { operation: 'decrypt' }, payload: encrypted.body.ciphertext }, auth)).body.payload).toBe('kept');
    expect(await keys()).toEqual(keyring);
    expect((await create('r-2')).status).toBe(201);

    await service.kill();
    const killedAt = Date.now();
    // The killed service's PostgreSQL server still runs: the restart reuses it.
    expect(runningServerPort(dataDir)).toBeDefined();
    expect(Date.now() - killedAt).toBeLessThan(2000);
    service = await startServiceProcess(env);
    expect(service.lines.some((l) => l.includes('reusing it'))).toBe(true);
    expect(
      keysOf(
        await eventually(
          () => read('in(merchantId,(r-1,r-2))'),
          (r) => keysOf(r).length === 2,
        ),
      ),
    ).toEqual(['r-1', 'r-2']);
    expect(await keys()).toEqual(keyring);
    expect((await create('r-3')).status).toBe(201);
  }, 240_000);

  test('verify, replay and psql work beside the running service, on its server', async () => {
    const cliEnv = { ...env, LOG_LEVEL: 'warn' };
    const verify = await runCli(['verify', '--entity', 'merchant_account', '--tenant', 'acme', '--json'], cliEnv);
    expect({ code: verify.code, stderr: verify.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/error|in use/i) });
    expect(JSON.parse(verify.stdout)).toMatchObject({ equal: true });
    const replay = await runCli(['replay', '--entity', 'merchant_account', '--tenant', 'acme', '--target', 'postgres'], cliEnv);
    expect({ code: replay.code, stderr: replay.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('done') });
    const psql = await runCli(['psql', '--', '-At', '-c', 'select count(*) from tenant_acme.merchant_account'], cliEnv);
    expect({ code: psql.code, out: psql.stdout.trim(), stderr: psql.stderr }).toEqual({ code: 0, out: '3', stderr: '' });
    // The service still serves from the swapped-in table.
    expect(keysOf(await read('in(merchantId,(r-1,r-2,r-3))'))).toEqual(['r-1', 'r-2', 'r-3']);
  }, 240_000);
});
