import { Client } from 'pg';
import { METRIC_NAMES } from '../../../src/observability';
import { testEntitiesDir } from '../../support/entities';
import { post, startTestService, type TestService } from '../../support/service';
import { parseExposition, valueOf, type Sample } from './exposition';

const EVENTS = 'acme.merchant_account.events';
const PROJECTOR = 'deltabroker-projector-postgres';

/** GET /metrics on a running service: who may scrape, and series that move with traffic. */
describe('GET /metrics', () => {
  let t: TestService;
  let scraper: string;
  let writer: string;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
    [scraper, writer] = await Promise.all([t.token(['metrics']), t.token(['writer'])]);
  });
  afterAll(() => t.stop());

  async function scrape(): Promise<Sample[]> {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${scraper}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    return parseExposition(await response.text());
  }
  const write = (operation: string, payload: unknown) =>
    post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation }, payload }, { authorization: `Bearer ${writer}` });

  test("needs a token with role operator or metrics: a tenant's admin does not see other tenants' topics and lag", async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    for (const token of [writer, await t.token(['admin']), await t.token(['admin'], { tenant: 'globex' })]) {
      const forbidden = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(forbidden.status).toBe(403);
      const body = await forbidden.text();
      expect(JSON.parse(body)).toMatchObject({ code: 'DB_FORBIDDEN', rule: 'operator-role' });
      expect(body).not.toContain(EVENTS);
    }
    const operator = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${await t.token(['operator'])}` } });
    expect(operator.status).toBe(200);
    expect(await operator.text()).toContain(EVENTS);
  });

  test('a refused write counts a validate verdict; an accepted one an accepted verdict and its HTTP status', async () => {
    const refusal = { verdict: 'refused', stage: 'validate', code: 'DB_VALIDATION' };
    const before = await scrape();
    const refused = await write('create', { merchantId: 'm-metrics-1', name: 'Ada', nickname: 'not configured' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ stage: 'validate', rule: 'unknown-field' });
    const accepted = await write('create', { merchantId: 'm-metrics-2', name: 'Ada' });
    expect(accepted.status).toBe(201);

    const after = await scrape();
    expect(valueOf(after, METRIC_NAMES.pipelineVerdicts, refusal) - valueOf(before, METRIC_NAMES.pipelineVerdicts, refusal)).toBe(1);
    const acceptedLabels = { verdict: 'accepted', stage: '', code: '' };
    expect(valueOf(after, METRIC_NAMES.pipelineVerdicts, acceptedLabels) - valueOf(before, METRIC_NAMES.pipelineVerdicts, acceptedLabels)).toBe(1);
    const created = { route: '/', method: 'POST', status: '201' };
    expect(valueOf(after, METRIC_NAMES.httpRequests, created) - valueOf(before, METRIC_NAMES.httpRequests, created)).toBe(1);
    expect(valueOf(after, `${METRIC_NAMES.httpRequestDuration}_count`, { route: '/', method: 'POST', status: '400' })).toBeGreaterThanOrEqual(1);
    // Unknown routes share one label value, whatever the URL.
    await fetch(`${t.url}/no/such/route/${Date.now()}`, { headers: { authorization: `Bearer ${writer}` } });
    expect(valueOf(await scrape(), METRIC_NAMES.httpRequests, { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
  });

  test('encrypt and decrypt are timed by their explicit method', async () => {
    const admin = await t.token(['admin']);
    const before = await scrape();
    const sealed = await post(
      `${t.url}/dispatch`,
      { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'hello' },
      { authorization: `Bearer ${admin}` },
    );
    expect(sealed.status).toBe(200);
    const opened = await post(
      `${t.url}/dispatch`,
      { dispatch: { operation: 'decrypt' }, payload: sealed.body.ciphertext },
      { authorization: `Bearer ${admin}` },
    );
    expect(opened.status).toBe(200);
    const after = await scrape();
    const count = `${METRIC_NAMES.cryptoDuration}_count`;
    for (const operation of ['encrypt', 'decrypt']) {
      const labels = { operation, method: 'aes256skv1' };
      expect(valueOf(after, count, labels) - valueOf(before, count, labels)).toBe(1);
    }
  });

  test('consumer lag per group and partition; projection lag follows the stored checkpoint', async () => {
    const written = await write('create', { merchantId: 'm-metrics-3', name: 'Grace' });
    expect(written.status).toBe(201);
    const { partition, offset } = written.body.position as { partition: number; offset: string };
    const high = Number(offset) + 1;

    // Caught up: the projector's lag on that partition reaches 0.
    let samples = await scrape();
    for (let i = 0; i < 50 && valueOf(samples, METRIC_NAMES.projectionLag, { projector: PROJECTOR, topic: EVENTS, partition: String(partition) }) !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      samples = await scrape();
    }
    expect(valueOf(samples, METRIC_NAMES.projectionLag, { projector: PROJECTOR, topic: EVENTS, partition: String(partition) })).toBe(0);
    const pipelinePartitions = samples.filter(
      (s) => s.name === METRIC_NAMES.consumerLag && s.labels.group === 'deltabroker-pipeline' && s.labels.topic === 'deltas',
    );
    const deltas = await t.service.log.topicOffsets('deltas');
    expect(pipelinePartitions.map((s) => Number(s.labels.partition)).sort()).toEqual(deltas.map((p) => p.partition));
    expect(samples.some((s) => s.name === METRIC_NAMES.consumerLag && s.labels.group === PROJECTOR && s.labels.topic === EVENTS)).toBe(true);
    expect(samples.some((s) => s.name === METRIC_NAMES.projectionRecordsApplied && s.labels.projector === PROJECTOR && s.value >= 1)).toBe(true);

    // A checkpoint moved back to 0 shows as lag of the whole partition.
    const sql = new Client({ connectionString: t.config.databaseUrl });
    await sql.connect();
    try {
      await sql.query('update projection_checkpoints set next_offset = 0 where projector = $1 and topic = $2 and partition = $3', [
        PROJECTOR,
        EVENTS,
        partition,
      ]);
    } finally {
      await sql.end();
    }
    expect(valueOf(await scrape(), METRIC_NAMES.projectionLag, { projector: PROJECTOR, topic: EVENTS, partition: String(partition) })).toBe(high);
  });

  test('default process metrics are there', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, METRIC_NAMES.lagCollectionFailures)).toBe(0);
  });
});
