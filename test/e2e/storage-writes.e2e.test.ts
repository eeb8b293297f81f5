import { loadSchemas, type ActionEvent, type EntityEvent } from '../../src/log';
import { testEntitiesDir } from '../support/entities';
import { post, startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const schemas = loadSchemas();
const EVENTS = 'acme.merchant_account.events';
const GLOBAL = 'acme.merchant_account.actions.global';
const LOCAL = 'acme.merchant_account.actions.dc1';

/** Seed 4.2 and 3 over HTTP: every stage's refusal, accepted writes with versions, action topics. */
describe('storage broker writes over HTTP', () => {
  let t: TestService;
  let admin: string;
  let writer: string;
  let reader: string;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
    [admin, writer, reader] = await Promise.all([t.token(['admin']), t.token(['writer']), t.token(['reader'])]);
  });
  afterAll(() => t.stop());

  const write = (token: string, entity: string, operation: string, payload: unknown, headers: Record<string, string> = {}, extra: object = {}) =>
    post(`${t.url}/`, { dispatch: { entity, operation, ...extra }, payload }, { authorization: `Bearer ${token}`, ...headers });
  const encrypt = async (text: string) =>
    (await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes' }, payload: text }, { authorization: `Bearer ${writer}` })).body
      .ciphertext as string;
  const events = () => readTopic(t.service.log, EVENTS, schemas.EntityEvent);
  const counts = async () => ({
    events: (await events()).length,
    global: (await readTopic(t.service.log, GLOBAL, schemas.ActionEvent)).length,
    local: (await readTopic(t.service.log, LOCAL, schemas.ActionEvent)).length,
  });
  /** The counts once the emitters announced every event so far (they trail the persistence topic a little). */
  const settledCounts = async () => {
    for (let attempt = 0; ; attempt++) {
      const now = await counts();
      if ((now.global === now.events && now.local === now.events) || attempt === 50) return now;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  /** A refusal reaches neither the persistence topic nor the action topics. */
  async function expectRefused(
    res: Awaited<ReturnType<typeof write>>,
    status: number,
    expected: Record<string, unknown>,
    before: Awaited<ReturnType<typeof counts>>,
  ) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject(expected);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await counts()).toEqual(before);
  }

  test('create, update and delete are accepted with versions, persisted and announced on both action topics', async () => {
    const iban = await encrypt('DE89370400440532013000');
    const created = await write(
      writer,
      'merchant_account',
      'create',
      { merchantId: 'm-1', name: 'Ada', country: 'DE', mcc: 5411, iban },
      { 'request-id': 'req-create-1' },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'accepted', entity: 'merchant_account', key: 'm-1', version: 1 });
    expect(created.body.position).toMatchObject({ topic: EVENTS });
    const updated = await write(writer, 'merchant_account', 'update', { merchantId: 'm-1', name: 'Ada L.', country: 'GB', iban });
    expect(updated.status).toBe(200);
    expect(updated.body.version).toBe(2);
    const deleted = await write(admin, 'merchant_account', 'delete', { merchantId: 'm-1' });
    expect(deleted.body.version).toBe(3);

    const persisted = (await events()).map((e) => e.value).filter((e) => e.key === 'm-1');
    expect(persisted.map((e) => [e.operation, e.version])).toEqual([
      ['create', 1],
      ['update', 2],
      ['delete', 3],
    ]);
    expect(persisted[0]).toMatchObject({ requestId: 'req-create-1', actor: { user: 'alice', roles: ['writer'] }, origin: { datacenter: 'dc1' } });
    expect(persisted[0]?.eventId).toBe(created.body.eventId);

    const global = await eventually(
      () => readTopic(t.service.log, GLOBAL, schemas.ActionEvent),
      (r) => r.filter((a) => a.value.key === 'm-1').length === 3,
    );
    const local = await eventually(
      () => readTopic(t.service.log, LOCAL, schemas.ActionEvent),
      (r) => r.filter((a) => a.value.key === 'm-1').length === 3,
    );
    for (const topic of [global, local]) {
      const actions = topic.map((a) => a.value).filter((a: ActionEvent) => a.key === 'm-1');
      expect(actions.map((a) => a.eventId)).toEqual(persisted.map((e) => e.eventId));
      expect(actions.every((a) => a.datacenter === 'dc1')).toBe(true);
    }
  });

  test('stage 1 (entity configuration): an unknown entity is refused', async () => {
    const before = await settledCounts();
    await expectRefused(
      await write(admin, 'no_such_entity', 'create', { id: 'x' }),
      404,
      { code: 'DB_NOT_FOUND', stage: 'entity-config', field: 'dispatch.entity' },
      before,
    );
  });

  test('stage 2 (validate): unknown field, wrong type and missing required field are refused', async () => {
    const before = await settledCounts();
    await expectRefused(
      await write(admin, 'merchant_account', 'create', { merchantId: 'v-1', name: 'A', colour: 'red' }),
      400,
      { stage: 'validate', field: 'payload.colour', rule: 'unknown-field' },
      before,
    );
    await expectRefused(
      await write(admin, 'merchant_account', 'create', { merchantId: 'v-1', name: 'A', mcc: 'x' }),
      400,
      { stage: 'validate', field: 'payload.mcc', rule: 'type:integer' },
      before,
    );
    await expectRefused(
      await write(admin, 'merchant_account', 'create', { merchantId: 'v-1' }),
      400,
      { stage: 'validate', field: 'payload.name', rule: 'required' },
      before,
    );
  });

  test('stage 3 (record key): duplicate create, missing record and a stale expectedVersion are refused', async () => {
    expect((await write(admin, 'merchant_account', 'create', { merchantId: 'k-1', name: 'K' })).status).toBe(201);
    const before = await settledCounts();
    await expectRefused(
      await write(admin, 'merchant_account', 'create', { merchantId: 'k-1', name: 'K' }),
      409,
      { code: 'DB_CONFLICT', stage: 'record-key', rule: 'already-exists' },
      before,
    );
    await expectRefused(
      await write(admin, 'merchant_account', 'update', { merchantId: 'k-404', name: 'K' }),
      404,
      { stage: 'record-key', rule: 'exists' },
      before,
    );
    await expectRefused(
      await write(admin, 'merchant_account', 'update', { merchantId: 'k-1', name: 'K2' }, {}, { expectedVersion: 7 }),
      409,
      { stage: 'record-key', rule: 'expected-version' },
      before,
    );
    const fresh = await write(admin, 'merchant_account', 'update', { merchantId: 'k-1', name: 'K2' }, {}, { expectedVersion: 1 });
    expect(fresh.body.version).toBe(2);
  });

  test('stage 4 (locate): a persistence topic the pipeline reserves is refused', async () => {
    const before = await settledCounts();
    await expectRefused(
      await write(admin, 'looped_account', 'create', { accountId: 'l-1' }),
      400,
      { stage: 'locate', field: 'persistence.topic', rule: 'reserved-topic' },
      before,
    );
  });

  test('stage 5 (permission): a reader may not create', async () => {
    const before = await settledCounts();
    await expectRefused(
      await write(reader, 'merchant_account', 'create', { merchantId: 'p-1', name: 'P' }),
      403,
      { code: 'DB_FORBIDDEN', stage: 'permission' },
      before,
    );
  });

  test('stage 6 (permission filter): a field the role may not write is stripped or refused, as configured', async () => {
    const stripped = await write(writer, 'merchant_account', 'create', { merchantId: 'f-1', name: 'F', status: 'vip' });
    expect(stripped.status).toBe(201);
    const event = (await events()).map((e) => e.value).find((e: EntityEvent) => e.key === 'f-1');
    expect(JSON.parse(event?.payload ?? '{}')).toEqual({ merchantId: 'f-1', name: 'F' });
    // An admin sets status; a writer's later update cannot touch it, and the event still carries the whole record.
    expect((await write(admin, 'merchant_account', 'update', { merchantId: 'f-1', name: 'F', status: 'gold' })).body.version).toBe(2);
    expect((await write(writer, 'merchant_account', 'update', { merchantId: 'f-1', name: 'F2', status: 'none' })).body.version).toBe(3);
    const last = (await events())
      .map((e) => e.value)
      .filter((e: EntityEvent) => e.key === 'f-1')
      .at(-1);
    expect(JSON.parse(last?.payload ?? '{}')).toEqual({ merchantId: 'f-1', name: 'F2', status: 'gold' });
    const refused = await write(writer, 'strict_account', 'create', { accountId: 's-1', name: 'S', status: 'vip' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ stage: 'permission-filter', field: 'status', rule: 'field-not-writable' });
  });

  test('stage 7 (encryption): a plaintext sensitive field is refused, a ciphertext from POST /dispatch accepted', async () => {
    const before = await settledCounts();
    const plain = await write(writer, 'merchant_account', 'create', { merchantId: 'e-1', name: 'E', iban: 'DE89370400440532013000' });
    await expectRefused(plain, 400, { stage: 'encryption', field: 'payload.iban', rule: 'encrypted' }, before);
    expect(JSON.stringify(plain.body)).not.toContain('DE8937');
    const encrypted = await write(writer, 'merchant_account', 'create', { merchantId: 'e-1', name: 'E', iban: await encrypt('DE89370400440532013000') });
    expect(encrypted.status).toBe(201);
  });

  test('every refusal through the pipeline is on the rejections topic with its stage', async () => {
    const rejections = await eventually(
      () => readTopic(t.service.log, 'rejections', schemas.Rejection),
      (r) => r.length >= 6,
    );
    const stages = new Set(rejections.map((r) => r.value.stage));
    for (const stage of ['validate', 'record-key', 'locate', 'permission', 'permission-filter', 'encryption']) expect(stages).toContain(stage);
  });

  test('Prefer: respond-async answers 202 at once; the verdict is at GET /deltas/:id', async () => {
    const res = await write(
      admin,
      'merchant_account',
      'create',
      { merchantId: 'a-1', name: 'Async' },
      { prefer: 'respond-async', 'idempotency-key': 'async-a-1' },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe('/deltas/async-a-1');
    const verdict = await eventually(
      () =>
        fetch(`${t.url}/deltas/async-a-1`, { headers: { authorization: `Bearer ${admin}` } }).then(
          (r) => r.json() as Promise<{ status: string; version?: number }>,
        ),
      (v) => v.status !== 'pending',
    );
    expect(verdict).toMatchObject({ status: 'accepted', version: 1 });
    const again = await write(admin, 'merchant_account', 'create', { merchantId: 'a-1', name: 'Async' }, { 'idempotency-key': 'async-a-1' });
    expect(again.status).toBe(201);
    expect(again.body.version).toBe(1);
  });

  test('malformed bodies are refused at the edge', async () => {
    const res = await write(admin, 'merchant_account', 'create', 'not an object');
    expect(res.body).toMatchObject({ code: 'DB_VALIDATION', field: 'payload', stage: 'http' });
    const unknownOp = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'upsert' }, payload: {} },
      { authorization: `Bearer ${admin}` },
    );
    expect(unknownOp.body).toMatchObject({ code: 'DB_VALIDATION', field: 'dispatch.operation' });
  });
});
