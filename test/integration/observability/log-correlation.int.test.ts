import { testEntitiesDir } from '../../support/entities';
import { post, startTestService, type TestService } from '../../support/service';
import { eventually } from '../../support/topics';

interface LogLine {
  msg: string;
  requestId?: string;
  deltaId?: string;
  eventId?: string;
  topic?: string;
  partition?: number;
  offset?: string;
  checkpoint?: string;
  code?: string;
  stage?: string;
  [field: string]: unknown;
}

/**
 * The structured log lines let an operator follow one write: Request-ID → delta id → event id → log position →
 * projection. The lines per delta and per projected batch are debug lines (the service under test logs at debug).
 */
describe('log correlation', () => {
  let t: TestService;
  let writer: string;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
    writer = await t.token(['writer']);
  });
  afterAll(() => t.stop());

  const lines = (): LogLine[] => t.logLines.map((l) => JSON.parse(l) as LogLine);
  const write = (requestId: string, payload: unknown) =>
    post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload },
      { authorization: `Bearer ${writer}`, 'request-id': requestId },
    );

  test('an accepted write: request lines, the accepted delta with its event and position, the projected batch', async () => {
    const answer = await write('corr-accepted-1', { merchantId: 'm-corr-1', name: 'Ada' });
    expect(answer.status).toBe(201);
    const { deltaId, eventId } = answer.body as { deltaId: string; eventId: string };
    const position = answer.body.position as { topic: string; partition: number; offset: string };

    // One access line per request, at completion: no separate line when it arrived.
    const http = lines().filter((l) => l.requestId === 'corr-accepted-1' && /^(incoming request|request completed)$/.test(l.msg));
    expect(http).toHaveLength(1);
    expect(http[0]).toMatchObject({ msg: 'request completed', method: 'POST', url: '/', route: '/', status: 201, remoteAddress: '127.0.0.1' });
    expect(http[0]?.durationMs).toEqual(expect.any(Number));

    const accepted = lines().filter((l) => l.msg === 'delta accepted' && l.requestId === 'corr-accepted-1');
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({ deltaId, eventId, topic: position.topic, partition: position.partition, offset: position.offset });

    // The table projector names the partition and the checkpoint after the batch that applied the event.
    const projected = await eventually(
      async () => lines().filter((l) => l.msg === 'batch projected' && l.topic === position.topic && l.partition === position.partition),
      (found) => found.some((l) => BigInt(l.checkpoint ?? '0') > BigInt(position.offset)),
    );
    expect(projected.length).toBeGreaterThan(0);
  });

  test('a refused write: the refusal names the request, the delta, the stage and the code', async () => {
    const answer = await write('corr-refused-1', { merchantId: 'm-corr-2', name: 'Ada', nickname: 'not configured' });
    expect(answer.status).toBe(400);
    const refused = lines().filter((l) => l.msg === 'delta refused' && l.requestId === 'corr-refused-1');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'DB_VALIDATION', stage: 'validate' });
    expect(typeof refused[0]?.deltaId).toBe('string');
    expect(lines().some((l) => l.requestId === 'corr-refused-1' && l.msg === 'request refused' && l.code === 'DB_VALIDATION')).toBe(true);
  });
});

describe('log lines at the default level (info)', () => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() }, logLevel: 'info' });
  });
  afterAll(() => t.stop());

  test('an accepted write logs its access line, and no line per delta or per projected batch', async () => {
    const writer = await t.token(['writer']);
    const answer = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-info-1', name: 'Ada' } },
      { authorization: `Bearer ${writer}`, 'request-id': 'info-accepted-1' },
    );
    expect(answer.status).toBe(201);
    // A read after the write's position answers once the table projector has applied it.
    const read = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'read', after: answer.body.position }, payload: 'eq(merchantId,m-info-1)' },
      { authorization: `Bearer ${await t.token(['reader'])}` },
    );
    expect(read.body).toMatchObject({ count: 1 });
    const lines = t.logLines.map((l) => JSON.parse(l) as LogLine);
    expect(lines.filter((l) => l.requestId === 'info-accepted-1').map((l) => l.msg)).toEqual(['request completed']);
    expect(lines.filter((l) => l.msg === 'delta accepted' || l.msg === 'batch projected')).toEqual([]);
  });
});
