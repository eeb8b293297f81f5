/**
 * Issue 33, item 3: a body over the HTTP limit is answered 413 before it is read, and the service then closes the
 * connection. Closing a socket whose receive buffer still holds the client's body makes the kernel send a reset,
 * which can reach the client before it read the 413. The service runs in its own process, as operators run it, and
 * node:http clients (one connection per request) upload bodies of 1.1–4 MB past its 1 MiB limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { uploadJson, uploadSlowlyThenRead, type UploadOutcome } from '../support/oversize-upload';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { Prng } from '../support/reliability/prng';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/service-process';

const REQUESTS = 2_000;
const IN_FLIGHT = 32;

async function inParallel<T>(count: number, width: number, run: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await run(index);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/** How many outcomes fall under each description, for a failure message that shows the whole picture. */
function tally(outcomes: UploadOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.failure ? `no answer: ${o.failure}` : `${o.status}${o.failureAfterAnswer ? ` then ${o.failureAfterAnswer}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe('bodies over the HTTP limit', () => {
  let db: FreshDatabase;
  let dataDir = '';
  let service: ServiceProcess;
  let auth: Record<string, string>;

  beforeAll(async () => {
    db = await createFreshDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-oversize-'));
    service = await startServiceProcess(
      {
        DELTABROKER_DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        DELTABROKER_HTTP_PORT: String(await freePort()),
        DELTABROKER_KAFKA_PORT: String(await freePort()),
        DELTABROKER_REGISTRY_PORT: String(await freePort()),
      },
      90_000,
    );
    const issuer = await loadDevIssuer(dataDir, 'deltabroker-dev', 'deltabroker');
    auth = { authorization: `Bearer ${await issuer.mint({ sub: 'uploader', tenant: 'acme', roles: ['writer'], ttlSeconds: 3600 })}` };
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test(`${REQUESTS} uploads of 1.1–4 MB, ${IN_FLIGHT} at a time: every one is answered 413, none is reset`, async () => {
    const prng = new Prng(33);
    const sizes = Array.from({ length: REQUESTS }, () => prng.int(1_100_000, 4_000_000));
    const outcomes = await inParallel(REQUESTS, IN_FLIGHT, (i) => uploadJson(`${service.url}/dispatch`, auth, sizes[i] as number));
    expect(tally(outcomes)).toEqual({ 413: REQUESTS });
    expect(outcomes.every((o) => JSON.parse(o.body ?? '{}').code === 'DB_PAYLOAD_TOO_LARGE')).toBe(true);
  }, 600_000);

  test('a client that sends its whole body slowly and reads only then still reads the 413: the service read the body to its end', async () => {
    const outcome = await uploadSlowlyThenRead(`${service.url}/dispatch`, auth, 2_000_000, { chunkBytes: 64 * 1024, pauseMs: 20 });
    expect(outcome.failure).toBeUndefined();
    expect(outcome).toMatchObject({ status: 413, bodySent: true });
    expect(JSON.parse(outcome.body ?? '{}')).toMatchObject({ code: 'DB_PAYLOAD_TOO_LARGE' });
  }, 60_000);
});
