import { testEntitiesDir } from '../../support/entities';
import { post, startTestService, type TestService } from '../../support/service';
import { eventually } from '../../support/topics';

const EVENTS = 'acme.merchant_account.events';
const XSS = '<img src=x onerror=alert(1)>';

/** GET /admin/topics…: what a tenant's admin, another tenant's admin, a writer and the service role `operator` see. */
describe('the topic routes', () => {
  let t: TestService;
  const get = async (route: string, token: string) => {
    const response = await fetch(`${t.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
    const written = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-topic', name: XSS, country: 'DE' } },
      { authorization: `Bearer ${await t.token(['writer'])}` },
    );
    expect(written.status).toBe(201);
  });
  afterAll(() => t.stop());

  test("a tenant's admin lists its persistence topics only, with their offsets", async () => {
    const { status, body } = await get('/admin/topics', await t.token(['admin']));
    expect(status).toBe(200);
    const topics = (body.topics as { topic: string; endOffset: string }[]).map((x) => x.topic);
    expect(topics).toContain(EVENTS);
    expect(topics.every((topic) => topic.startsWith('acme.'))).toBe(true);
    expect((body.topics as { topic: string; endOffset: string }[]).find((x) => x.topic === EVENTS)?.endOffset).toBe('1');
  });

  test("describe: partitions, and the lag per partition of the service's groups and of the tenant's own consumer", async () => {
    // A consumer of the tenant's own reads the topic and stops; a record written after it is its lag.
    let read = 0;
    const reader = await t.service.log.subscribe({
      groupId: 'acme-outside-reader',
      topics: [EVENTS],
      handleBatch: async (b) => void (read += b.records.length),
    });
    await reader.joined;
    await eventually(
      async () => read,
      (n) => n === 1,
    );
    await reader.stop();
    const later = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-later', name: 'Later', country: 'DE' } },
      { authorization: `Bearer ${await t.token(['writer'])}` },
    );
    const { partition } = later.body.position as { partition: number };

    const { status, body } = await get(`/admin/topics/${EVENTS}`, await t.token(['admin']));
    expect(status).toBe(200);
    expect(body.partitions).toEqual(await t.service.log.topicOffsets(EVENTS));
    const groups = body.groups as { group: string; partition: number; lag: number }[];
    expect(groups.find((g) => g.group === 'acme-outside-reader' && g.partition === partition)).toMatchObject({ lag: 1 });
    expect(groups.some((g) => g.group === 'deltabroker-projector-postgres')).toBe(true);
    expect(groups.every((g) => g.group !== 'deltabroker-pipeline')).toBe(true);
  });

  test('messages: decoded from Avro with their writer schema, the payload as the text it is', async () => {
    const { status, body } = await get(`/admin/topics/${EVENTS}/messages?limit=5`, await t.token(['admin']));
    expect(status).toBe(200);
    const messages = body.messages as { schemaId: number; value: { tenant: string; key: string; payload: string } }[];
    expect(messages.map((m) => m.value.key)).toEqual(['m-later', 'm-topic']);
    const message = messages[1];
    expect(message?.value).toMatchObject({ tenant: 'acme', key: 'm-topic' });
    expect(JSON.parse(message?.value.payload ?? '{}')).toMatchObject({ name: XSS });
    expect((body.schemas as Record<string, { name: string }>)[String(message?.schemaId)]).toMatchObject({ name: 'EntityEvent' });
    expect((await get(`/admin/topics/${EVENTS}/messages?limit=x`, await t.token(['admin']))).body).toMatchObject({ code: 'DB_VALIDATION', field: 'limit' });
  });

  test("another tenant's admin sees none of them: no topic listed, each answered as one that does not exist", async () => {
    const other = await t.token(['admin'], { tenant: 'globex', sub: 'gina' });
    expect((await get('/admin/topics', other)).body).toEqual({ topics: [] });
    for (const route of [`/admin/topics/${EVENTS}`, `/admin/topics/${EVENTS}/messages`, '/admin/topics/deltas', '/admin/topics/deltas/messages']) {
      const answer = await get(route, other);
      expect([answer.status, answer.body.code]).toEqual([404, 'DB_NOT_FOUND']);
    }
  });

  test('a writer may not; the service role operator sees every topic but no tenant’s messages', async () => {
    expect((await get('/admin/topics', await t.token(['writer']))).status).toBe(403);
    const operator = await t.token(['operator'], { tenant: 'ops' });
    const topics = ((await get('/admin/topics', operator)).body.topics as { topic: string }[]).map((x) => x.topic);
    expect(topics).toEqual(expect.arrayContaining(['deltas', 'rejections', EVENTS]));
    const deltas = await get('/admin/topics/deltas', operator);
    expect((deltas.body.groups as { group: string }[]).some((g) => g.group === 'deltabroker-pipeline')).toBe(true);
    expect((await get(`/admin/topics/${EVENTS}/messages`, operator)).status).toBe(403);
  });
});
