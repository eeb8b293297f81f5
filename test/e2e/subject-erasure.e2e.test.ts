/**
 * Issue 19: crypto-shredding. Records of two data subjects are written through HTTP and through a Kafka
 * client; one subject is erased; its personal fields then read as the marker through RQL and search, its
 * values match nothing, its ciphertexts decrypt for nobody, a replay and verify agree, and neither the log's
 * segment files nor the service's log lines ever held a plaintext.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { loadSchemas, type DeltaEnvelope } from '../../src/log';
import { runCli } from '../support/cli-process';
import { testEntitiesDir } from '../support/entities';
import { awaitProjected, post, startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';
import { logFileDirs } from '../support/engines';

const schemas = loadSchemas();
const PLAIN = {
  aliceName: 'Alice Plaintext-Q7X2',
  aliceEmail: 'alice.q7x2@example.test',
  aliceOther: 'Alice Kafka-Z9W4',
  bobName: 'Bob Plaintext-K3M8',
};

/** Files under `dir`, leaving out Kafka's `<partition>.<id>-delete` directories: a deleted topic's, removed in the background. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name.endsWith('-delete')) return [];
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('erasing a data subject (crypto-shredding)', () => {
  let t: TestService;
  let producer: Producer;
  let registry: SchemaRegistry;
  const tokens: Record<string, string> = {};
  const ct = { aliceName: '', aliceEmail: '', aliceOther: '', bobName: '' };
  let lastPosition: unknown;

  const as = (role: string) => ({ authorization: `Bearer ${tokens[role]}` });
  const encrypt = async (subject: string, payload: string): Promise<string> => {
    const res = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes', subject }, payload }, as('writer'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ keyRef: `subject.${subject}`, method: 'aes256skv1' });
    return res.body.ciphertext as string;
  };
  const write = (operation: string, payload: Record<string, unknown>) =>
    post(`${t.url}/`, { dispatch: { entity: 'customer', operation }, payload }, as('writer'));
  const ask = (operation: 'read' | 'search', payload: unknown) =>
    post(`${t.url}/`, { dispatch: { entity: 'customer', operation, ...(lastPosition ? { after: lastPosition } : {}) }, payload }, as('admin'));
  const rows = async (): Promise<Record<string, Record<string, unknown>>> => {
    const res = await ask('read', 'sort(+customerId)&limit(100)');
    expect(res.status).toBe(200);
    return Object.fromEntries((res.body.items as Record<string, unknown>[]).map((r) => [r.customerId as string, r]));
  };
  const hits = async (field: string, value: string): Promise<string[]> => {
    const res = await ask('search', { query: { term: { [`${field}.keyword`]: value } } });
    expect(res.status).toBe(200);
    return (res.body.hits as { hits: { _id: string }[] }).hits.map((h) => h._id).sort();
  };
  const decrypt = (role: string, ciphertext: string) => post(`${t.url}/dispatch`, { dispatch: { operation: 'decrypt' }, payload: ciphertext }, as(role));

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
    for (const role of ['admin', 'writer', 'decrypter', 'eraser']) tokens[role] = await t.token([role], { sub: `${role}-user` });
    const kafka = new Kafka({ clientId: 'erasure-e2e', brokers: t.service.brokers, logLevel: logLevel.NOTHING });
    producer = kafka.producer();
    await producer.connect();
    registry = new SchemaRegistry({ host: t.service.registryUrl });
  }, 60_000);
  afterAll(async () => {
    await producer?.disconnect();
    await t?.stop();
  });

  test('personal fields must be ciphertexts under the record subject key', async () => {
    ct.aliceName = await encrypt('s-alice', PLAIN.aliceName);
    ct.aliceEmail = await encrypt('s-alice', PLAIN.aliceEmail);
    ct.aliceOther = await encrypt('s-alice', PLAIN.aliceOther);
    ct.bobName = await encrypt('s-bob', PLAIN.bobName);
    const plain = await write('create', { customerId: 'c-0', subjectId: 's-alice', name: PLAIN.aliceName });
    expect(plain.body).toMatchObject({ status: 400, stage: 'encryption', field: 'payload.name', rule: 'encrypted' });
    expect(JSON.stringify(plain.body)).not.toContain(PLAIN.aliceName);
    const otherSubject = await write('create', { customerId: 'c-0', subjectId: 's-alice', name: ct.bobName });
    expect(otherSubject.body).toMatchObject({ status: 400, stage: 'encryption', field: 'payload.name', rule: 'subject-key' });
    const badId = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes', subject: 'a/b' }, payload: 'x' }, as('writer'));
    expect(badId.body).toMatchObject({ status: 400, field: 'dispatch.subject', rule: 'subject-id' });
    const hsm = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'hsm', subject: 's-alice' }, payload: 'x' }, as('writer'));
    expect(hsm.body).toMatchObject({ status: 400, field: 'dispatch.subject', rule: 'aes-only' });
  });

  test('records of two subjects, through HTTP and a Kafka client, erase one subject', async () => {
    const created = [
      await write('create', { customerId: 'c-1', subjectId: 's-alice', name: ct.aliceName, email: ct.aliceEmail, tier: 'gold' }),
      await write('create', { customerId: 'c-2', subjectId: 's-bob', name: ct.bobName, tier: 'silver' }),
    ];
    expect(created.map((c) => c.status)).toEqual([201, 201]);
    const { id: schemaId } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(schemas.DeltaEnvelope.definition) },
      { subject: 'deltas-value' },
    );
    const delta: DeltaEnvelope = {
      id: randomUUID(),
      requestId: null,
      tenant: 'acme',
      entity: 'customer',
      operation: 'create',
      key: 'c-3',
      payload: JSON.stringify({ customerId: 'c-3', subjectId: 's-alice', name: ct.aliceOther, tier: 'bronze' }),
      actor: { user: 'batch-job', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    };
    // A Kafka client proves its actor with the caller's token (stage 5).
    const proof = { authorization: `Bearer ${await t.token(['writer'], { sub: 'batch-job' })}` };
    await producer.send({ topic: 'deltas', messages: [{ key: 'acme/customer/c-3', value: await registry.encode(schemaId, delta), headers: proof }] });
    const status = await eventually(
      async () => (await fetch(`${t.url}/deltas/${delta.id}`, { headers: as('admin') }).then((r) => r.json())) as { status: string; position?: unknown },
      (s) => s.status === 'accepted',
    );
    lastPosition = status.position;
    await awaitProjected(t.url, 'customer', [...created.map((c) => c.body.position), status.position], tokens.admin as string);
    const before = await rows();
    expect(before['c-1']).toMatchObject({ name: ct.aliceName, email: ct.aliceEmail });
    expect(before['c-3']).toMatchObject({ name: ct.aliceOther });
    expect(await hits('name', ct.aliceName)).toEqual(['c-1']);
    expect((await decrypt('decrypter', ct.aliceName)).body).toMatchObject({ payload: PLAIN.aliceName });

    expect((await post(`${t.url}/subjects/s-alice/erase`, {}, as('admin'))).status).toBe(403);
    const erased = await post(`${t.url}/subjects/s-alice/erase`, {}, { ...as('eraser'), 'request-id': 'erase-1' });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({
      tenant: 'acme',
      subject: 's-alice',
      erasedBy: 'eraser-user',
      requestId: 'erase-1',
      first: true,
      destroyedKeyVersions: 1,
      entities: ['customer'],
    });
    expect((await post(`${t.url}/subjects/s-alice/erase`, {}, as('eraser'))).body).toMatchObject({ first: false, destroyedKeyVersions: 0 });
  });

  test('the erased subject reads as the marker everywhere; the other subject is untouched', async () => {
    const after = await eventually(rows, (r) => r['c-1']?.name === '[erased]' && r['c-3']?.name === '[erased]');
    expect(after['c-1']).toMatchObject({ name: '[erased]', email: '[erased]', tier: 'gold', subjectId: 's-alice' });
    expect(after['c-3']).toMatchObject({ name: '[erased]', tier: 'bronze' });
    expect(after['c-3']?.email ?? null).toBeNull();
    expect(after['c-2']).toMatchObject({ name: ct.bobName });
    await eventually(
      () => hits('name', ct.aliceName),
      (h) => h.length === 0,
    );
    expect(await hits('email', ct.aliceEmail)).toEqual([]);
    expect(await hits('name', ct.aliceOther)).toEqual([]);
    expect(await hits('name', '[erased]')).toEqual(['c-1', 'c-3']);
    expect(await hits('name', ct.bobName)).toEqual(['c-2']);

    for (const role of ['admin', 'decrypter', 'writer', 'eraser']) {
      const res = await decrypt(role, ct.aliceName);
      expect([403, 410]).toContain(res.status);
      expect(JSON.stringify(res.body)).not.toContain(PLAIN.aliceName);
    }
    expect((await decrypt('admin', ct.aliceName)).body).toMatchObject({ status: 410, code: 'DB_SUBJECT_ERASED' });
    expect((await post(`${t.url}/dispatch`, { dispatch: { operation: 'rewrap' }, payload: ct.aliceName }, as('writer'))).body).toMatchObject({
      code: 'DB_SUBJECT_ERASED',
    });
    expect(
      (await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes', subject: 's-alice' }, payload: 'again' }, as('writer'))).body,
    ).toMatchObject({
      code: 'DB_SUBJECT_ERASED',
    });
    expect((await decrypt('admin', ct.bobName)).body).toMatchObject({ payload: PLAIN.bobName });

    const keys = await t.service.sql.query('select 1 from crypto_key_versions where tenant = $1 and name = $2', ['acme', 'subject.s-alice']);
    expect(keys.rowCount).toBe(0);
    const actions = await eventually(
      () => readTopic(t.service.log, 'acme.customer.actions.global', schemas.ActionEvent),
      (all) => all.some((a) => a.value.operation === 'erase'),
    );
    const erase = actions.find((a) => a.value.operation === 'erase')?.value;
    expect(erase).toMatchObject({
      key: 's-alice',
      user: 'eraser-user',
      payload: JSON.stringify({ subject: 's-alice', subjectField: 'subjectId', fields: ['name', 'email'] }),
    });
  });

  test('right of access lists what is held of the subject and whether it is erased', async () => {
    const alice = await fetch(`${t.url}/subjects/s-alice`, { headers: as('admin') }).then((r) => r.json());
    expect(alice).toMatchObject({
      subject: 's-alice',
      erased: { erasedBy: 'eraser-user' },
      keyVersions: 0,
      holdings: [{ entity: 'customer', records: 2, keys: ['c-1', 'c-3'] }],
    });
    const bob = await fetch(`${t.url}/subjects/s-bob`, { headers: as('eraser') }).then((r) => r.json());
    expect(bob).toMatchObject({ erased: null, keyVersions: 1, holdings: [{ entity: 'customer', records: 1, keys: ['c-2'] }] });
    expect((await fetch(`${t.url}/subjects/s-bob`, { headers: as('writer') })).status).toBe(403);
    const otherTenant = await t.token(['admin', 'eraser'], { tenant: 'globex' });
    const fromGlobex = await fetch(`${t.url}/subjects/s-alice`, { headers: { authorization: `Bearer ${otherTenant}` } }).then((r) => r.json());
    expect(fromGlobex).toMatchObject({ tenant: 'globex', erased: null, holdings: [] });
  });

  test('a full replay and verify reproduce the erased state', async () => {
    const before = await rows();
    const finished = async (id: string): Promise<Record<string, unknown>> =>
      eventually(
        async () => (await fetch(`${t.url}/admin/replay/${id}`, { headers: as('admin') }).then((r) => r.json())) as Record<string, unknown>,
        (v) => v.status !== 'running',
        60_000,
      );
    const replay = await post(`${t.url}/admin/replay`, { entity: 'customer' }, as('admin'));
    expect(replay.status).toBe(202);
    expect(await finished(replay.body.id as string)).toMatchObject({ status: 'succeeded' });
    expect(await rows()).toEqual(before);
    expect(await hits('name', ct.aliceName)).toEqual([]);
    expect(await hits('name', '[erased]')).toEqual(['c-1', 'c-3']);
    const verify = await post(`${t.url}/admin/verify`, { entity: 'customer' }, as('admin'));
    expect(await finished(verify.body.id as string)).toMatchObject({ status: 'succeeded', result: { equal: true, differingRows: 0 } });
  });

  test('the CLI erases and shows a subject beside the running service', async () => {
    const env = {
      DELTABROKER_DATA_DIR: t.config.dataDir,
      DELTABROKER_ENTITIES_DIR: t.config.entities.directory,
      DATABASE_URL: t.config.databaseUrl as string,
      LOG_LEVEL: 'warn',
    };
    const erased = await runCli(['subjects', 'erase', 's-bob', '--tenant', 'acme', '--by', 'ops-1'], env);
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ erasure: { subject: 's-bob', erasedBy: 'ops-1' }, destroyedKeyVersions: 1, entities: ['customer'] });
    const shown = await runCli(['subjects', 'show', 's-bob', '--tenant', 'acme'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ erased: { erasedBy: 'ops-1' }, keyVersions: 0, holdings: [{ records: 1, keys: ['c-2'] }] });
    await eventually(rows, (r) => r['c-2']?.name === '[erased]');
    expect((await decrypt('admin', ct.bobName)).body).toMatchObject({ code: 'DB_SUBJECT_ERASED' });
  }, 120_000);

  test('no segment file of the persistence topic and no log line ever held a plaintext', () => {
    // The deltas topic keeps what producers sent, refused plaintexts included (7 days); the persistence topic is kept forever.
    const segments = logFileDirs(t.config.dataDir)
      .flatMap(filesUnder)
      .filter((f) => f.includes('acme.customer.events'));
    expect(segments.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(segments.map((f) => readFileSync(f)));
    for (const value of Object.values(PLAIN)) {
      expect(bytes.includes(Buffer.from(value))).toBe(false);
      expect(t.logLines.some((l) => l.includes(value))).toBe(false);
    }
    expect(bytes.includes(Buffer.from(ct.aliceName))).toBe(true); // the grep does see what the log holds
  });
});
