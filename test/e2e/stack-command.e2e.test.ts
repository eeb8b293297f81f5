/**
 * `deltabroker stack up` as a developer without Docker runs it: one Kafka 4 node, Apicurio Registry and a
 * PostgreSQL server as local processes; the printed settings point a service at them, a write goes through, and
 * `stack down` leaves no engine running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isAlive } from '../../src/stack/engine-process';
import { spawnCli } from '../integration/cli/run-cli';
import { describeWithEngines } from '../support/engines';
import { testEntitiesDir } from '../support/entities';
import { post, startTestService, type TestService } from '../support/service';

jest.setTimeout(240_000);

const parseExports = (text: string): Record<string, string> =>
  Object.fromEntries([...text.matchAll(/^export ([A-Z_]+)='([^']*)'$/gm)].map((m) => [m[1] as string, m[2] as string]));

// The command needs what the test engines need (java, mvn), so it runs where they run.
describeWithEngines(['kafka', 'registry'], 'deltabroker stack up|env|status|down', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'deltabroker-stack-'));
  let service: TestService | undefined;

  afterAll(async () => {
    await service?.stop();
    await spawnCli(['stack', 'down', '--dir', dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('the printed settings run a service on the stack; down stops every engine', async () => {
    const up = await spawnCli(['stack', 'up', '--dir', dir]);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    const env = parseExports(up.stdout);
    expect(Object.keys(env).sort()).toEqual(['DATABASE_URL', 'DELTABROKER_KAFKA_BROKERS', 'DELTABROKER_SCHEMA_REGISTRY_URL']);
    expect(parseExports((await spawnCli(['stack', 'env', '--dir', dir])).stdout)).toEqual(env);

    const status = JSON.parse((await spawnCli(['stack', 'status', '--dir', dir])).stdout) as { name: string; pid: number; running: boolean }[];
    expect(status.map((s) => [s.name, s.running])).toEqual([
      ['kafka-1', true],
      ['schema-registry', true],
    ]);

    service = await startTestService({ store: 'embedded', env: { ...env, DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
    const token = await service.token(['admin', 'writer']);
    const created = await post(
      `${service.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-stack', name: 'On the stack' } },
      { authorization: `Bearer ${token}` },
    );
    expect(created.status).toBe(201);
    await service.stop();
    service = undefined;

    const down = await spawnCli(['stack', 'down', '--dir', dir]);
    expect(down.code).toBe(0);
    expect(status.filter((s) => isAlive(s.pid))).toEqual([]);
  });
});
