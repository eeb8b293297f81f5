/**
 * Replay and verify on the whole service (embedded broker, PostgreSQL): the admin routes rebuild while reads
 * and writes go on, the CLI works beside the running service, and once the service is
 * stopped the CLI's dry run, verify (exit 0) and verify of a tampered row (exit 2) work on its data.
 */
import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { createJwtVerifier } from '../../src/auth/jwt-verifier';
import { buildHttpApp } from '../../src/http/app';
import { projectionReplay } from '../../projections/replay';
import { registerReplayRoutes } from '../../src/http/routes/replay';
import { loadSchemas } from '../../src/log';
import { silentLogger } from '../../src/logger';
import { createPostgresSearchIndex } from '../../src/search/postgres/postgres-search-index';
import { runCli as runCliProcess } from '../support/cli-process';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { post, startTestService, type TestService } from '../support/service';

const runCli = (args: string[], env: Record<string, string>) => runCliProcess(args, { LOG_LEVEL: 'warn', ...env });

describe('replay and verify on the running service, then from the CLI', () => {
  let database: FreshDatabase;
  let t: TestService;
  let admin: string;
  let adminApp: FastifyInstance;
  let adminUrl = '';

  beforeAll(async () => {
    database = await createFreshDatabase('dbt_replay_e2e');
    t = await startTestService({ database });
    admin = await t.token(['admin']);
    // The admin routes as main.ts registers them, on an app of their own (the service's app is already listening).
    const issuer = await loadDevIssuer(t.config.dataDir, t.config.auth.issuer, t.config.auth.audience);
    adminApp = buildHttpApp({
      logger: silentLogger(),
      verifier: await createJwtVerifier({ ...t.config.auth, devPublicKey: issuer.publicKey }),
      bodyLimitBytes: 1 << 20,
    });
    registerReplayRoutes(
      adminApp,
      projectionReplay({
        sql: t.service.sql,
        log: t.service.log,
        schemas: loadSchemas(),
        entities: t.service.entities,
        search: createPostgresSearchIndex(t.service.sql),
        logger: silentLogger(),
      }),
      silentLogger(),
    );
    adminUrl = await adminApp.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await adminApp?.close();
    await t?.service.stop().catch(() => undefined);
    if (t) rmSync(t.config.dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${admin}` });
  const write = (i: number, name: string) =>
    post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: `e-${i}`, name, country: 'DE', mcc: 5000 + i } },
      auth(),
    );
  const read = (rql: string, after?: unknown) =>
    post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation: 'read', ...(after ? { after } : {}) }, payload: rql }, auth());
  const job = async (id: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${adminUrl}/admin/replay/${id}`, { headers: auth() });
    return (await res.json()) as Record<string, unknown>;
  };
  const finished = async (id: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const view = await job(id);
      if (view.status !== 'running') return view;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  test('POST /admin/replay rebuilds while reads answer and writes go on; nothing written meanwhile is lost', async () => {
    for (let i = 0; i < 200; i += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, k) => write(i + k, `merchant ${i + k}`)));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    }
    const probe = await read('eq(merchantId,e-7)', (await write(999, 'last before')).body.position);
    expect(probe.status).toBe(200);

    const dry = await post(`${adminUrl}/admin/replay`, { entity: 'merchant_account', dryRun: true }, auth());
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, topic: 'acme.merchant_account.events', events: 201 });
    expect(await post(`${adminUrl}/admin/replay`, { entity: 'merchant_account' }, { authorization: `Bearer ${await t.token(['reader'])}` })).toMatchObject({
      status: 403,
    });
    expect(await post(`${adminUrl}/admin/replay`, { entity: 'nope' }, auth())).toMatchObject({ status: 404 });

    const started = await post(`${adminUrl}/admin/replay`, { entity: 'merchant_account' }, auth());
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    expect(started.headers.get('location')).toBe(`/admin/replay/${id}`);

    const readStatuses: number[] = [];
    const found: boolean[] = [];
    let lastWrite: unknown;
    let i = 1000;
    while ((await job(id)).status === 'running' || readStatuses.length < 10) {
      const [r, w] = await Promise.all([read('eq(merchantId,e-7)'), write(i, `during ${i}`)]);
      readStatuses.push(r.status);
      found.push((r.body.items as { merchantId: string }[] | undefined)?.[0]?.merchantId === 'e-7');
      expect(w.status).toBe(201);
      lastWrite = w.body.position;
      i += 1;
    }
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'succeeded', kind: 'replay', progress: { phase: 'done' } });
    expect(readStatuses.length).toBeGreaterThanOrEqual(10);
    expect(readStatuses.every((s) => s === 200)).toBe(true);
    expect(found.every(Boolean)).toBe(true);

    // Every record written during the replay is readable afterwards, once. Reading after the last write waits for
    // its partition only; the partitions are projected concurrently, so the others may need a moment longer.
    const written = Array.from({ length: i - 1000 }, (_, k) => `e-${1000 + k}`).sort();
    let ids: string[] = [];
    for (let attempt = 0; attempt < 50 && ids.join() !== written.join(); attempt++) {
      const after = await read(`match(name,during*)&limit(1000)`, lastWrite);
      expect(after.status).toBe(200);
      ids = (after.body.items as { merchantId: string }[]).map((item) => item.merchantId).sort();
      if (ids.join() !== written.join()) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ids).toEqual(written);

    const verify = await post(`${adminUrl}/admin/verify`, { entity: 'merchant_account' }, auth());
    expect(verify.status).toBe(202);
    expect(await finished(verify.body.id as string)).toMatchObject({ status: 'succeeded', result: { equal: true, differingRows: 0 } });
  });

  test('the CLI works beside the running service (its broker and registry), and on the data once it stopped', async () => {
    const env = { DELTABROKER_DATA_DIR: t.config.dataDir, DATABASE_URL: database.url };
    const beside = await runCli(['verify', '--entity', 'merchant_account'], env);
    expect(beside.stdout).toContain('equal');
    expect(beside.code).toBe(0);

    await t.service.stop();
    const dry = await runCli(['replay', '--entity', 'merchant_account', '--dry-run', '--from-offset', '3'], env);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as { dryRun: boolean; from: string; targets: { live: string }[] };
    expect(plan).toMatchObject({ dryRun: true, from: 'offset 3' });
    expect(plan.targets.map((x) => x.live)).toEqual(['tenant_acme.merchant_account', 'acme__merchant_account']);

    const clean = await runCli(['verify', '--entity', 'merchant_account'], env);
    expect(clean.stdout).toContain('equal');
    expect(clean.code).toBe(0);

    const { Client } = await import('pg');
    const pg = new Client({ connectionString: database.url });
    await pg.connect();
    await pg.query(`update tenant_acme.merchant_account set name = 'tampered' where "merchantId" = 'e-5'`);
    await pg.end();
    const tampered = await runCli(['verify', '--entity', 'merchant_account'], env);
    expect(tampered.code).toBe(2);
    expect(tampered.stdout).toContain('DIFFERENT: 1 row(s) differ');
    expect(tampered.stdout).toMatch(/differs\s+key \(e-5\)/);

    const rebuilt = await runCli(['replay', '--entity', 'merchant_account'], env);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stderr).toContain('done'); // plain progress lines: stderr is not a terminal here
    expect((await runCli(['verify', '--entity', 'merchant_account'], env)).code).toBe(0);
  });
});
