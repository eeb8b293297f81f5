import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { loadSchemas, type DeltaEnvelope, type DeltaOutcome } from '../../src/log';
import { testEntitiesDir } from '../support/entities';
import { startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';
import { embeddedBrokerOnly } from '../support/engines';

const schemas = loadSchemas();

/** Producers that publish DeltaEnvelopes straight to the deltas topic with their own Kafka client get the same processing. */
describe('deltas from any Kafka producer', () => {
  let t: TestService;
  let producer: Producer;
  let registry: SchemaRegistry;
  let schemaId: number;

  beforeAll(async () => {
    const entities = testEntitiesDir();
    // An entity with an object field, which takes nested values.
    writeFileSync(
      path.join(entities, 'acme', 'nested_note.yaml'),
      'tenant: acme\nentity: nested_note\nkey: [noteId]\nfields:\n  noteId: { type: string, required: true }\n  body: { type: object }\nroles:\n  writer: { operations: [create, update, delete], write: "*", read: "*" }\n',
    );
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: entities } });
    const kafka = new Kafka({ clientId: 'third-party-producer', brokers: t.service.brokers, logLevel: logLevel.NOTHING });
    producer = kafka.producer();
    await producer.connect();
    registry = new SchemaRegistry({ host: t.service.registryUrl });
    ({ id: schemaId } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(schemas.DeltaEnvelope.definition) },
      { subject: 'deltas-value' },
    ));
  });
  afterAll(async () => {
    await producer.disconnect();
    await t.stop();
  });

  const delta = (over: Partial<DeltaEnvelope>): DeltaEnvelope => ({
    id: randomUUID(),
    requestId: null,
    tenant: 'acme',
    entity: 'merchant_account',
    operation: 'create',
    key: 'kp-1',
    payload: JSON.stringify({ merchantId: over.key ?? 'kp-1', name: 'From Kafka' }),
    actor: { user: 'batch-job', roles: ['writer'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.now(),
    expectedVersion: null,
    retryOf: null,
    ...over,
  });
  /** A delta with its actor's proof: the caller's JWT in the `authorization` header (or `proof: null` for none). */
  const send = async (d: DeltaEnvelope, proof?: string | null) => {
    const token = proof === undefined ? await t.token(['writer'], { sub: d.actor.user, tenant: d.tenant }) : proof;
    const headers = token === null ? undefined : { authorization: `Bearer ${token}` };
    return producer.send({
      topic: 'deltas',
      messages: [{ key: `${d.tenant}/${d.entity}/${d.key}`, value: await registry.encode(schemaId, d), ...(headers && { headers }) }],
    });
  };
  const outcomes = () => readTopic(t.service.log, 'deltabroker.outcomes', schemas.DeltaOutcome);
  const outcomeOf = async (id: string): Promise<DeltaOutcome> =>
    (await eventually(outcomes, (all) => all.some((o) => o.value.deltaId === id))).find((o) => o.value.deltaId === id)?.value as DeltaOutcome;

  test('an accepted delta is persisted like an HTTP write', async () => {
    const d = delta({ key: 'kp-1' });
    await send(d);
    expect(await outcomeOf(d.id)).toMatchObject({ status: 'accepted', version: 1, topic: 'acme.merchant_account.events' });
    const events = await readTopic(t.service.log, 'acme.merchant_account.events', schemas.EntityEvent);
    expect(events.find((e) => e.value.deltaId === d.id)?.value).toMatchObject({ key: 'kp-1', version: 1, actor: { user: 'batch-job' } });
  });

  test('a refused delta lands on the rejections topic with its stage and reason, and is not persisted', async () => {
    const plaintext = delta({ key: 'kp-2', payload: JSON.stringify({ merchantId: 'kp-2', name: 'X', iban: 'DE00123' }) });
    const unknown = delta({ key: 'kp-3', entity: 'ghost' });
    await send(plaintext);
    await send(unknown);
    expect(await outcomeOf(plaintext.id)).toMatchObject({ status: 'refused', stage: 'encryption', code: 'DB_VALIDATION' });
    expect(await outcomeOf(unknown.id)).toMatchObject({ status: 'refused', stage: 'entity-config', code: 'DB_NOT_FOUND' });
    const rejections = (await readTopic(t.service.log, 'rejections', schemas.Rejection)).map((r) => r.value);
    expect(rejections.find((r) => r.deltaId === plaintext.id)).toMatchObject({
      stage: 'encryption',
      reason: 'DB_VALIDATION',
      key: 'kp-2',
      source: { topic: 'deltas' },
    });
    expect(JSON.stringify(rejections)).not.toContain('DE00123');
    const events = await readTopic(t.service.log, 'acme.merchant_account.events', schemas.EntityEvent);
    expect(events.some((e) => e.value.deltaId === plaintext.id || e.value.deltaId === unknown.id)).toBe(false);
  });

  test('a payload nested too deeply to make an event of is refused at validate, and the deltas behind it go on', async () => {
    // 100,000 levels: JSON.parse takes them, JSON.stringify of the event's state overflowed the stack at every retry.
    const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const deep = delta({ entity: 'nested_note', key: 'n-deep', payload: `{"noteId":"n-deep","body":${nested(100_000)}}` });
    const deepEnough = delta({ entity: 'nested_note', key: 'n-99', payload: `{"noteId":"n-99","body":${nested(99)}}` });
    const after = delta({ entity: 'nested_note', key: 'n-after', payload: '{"noteId":"n-after","body":{"a":1}}' });
    for (const d of [deep, deepEnough, after]) await send(d);
    expect(await outcomeOf(deep.id)).toMatchObject({ status: 'refused', stage: 'validate', code: 'DB_VALIDATION', message: expect.stringContaining('levels') });
    expect((await outcomeOf(deepEnough.id)).status).toBe('accepted');
    expect((await outcomeOf(after.id)).status).toBe('accepted');
  });

  test('the same delta sent twice is applied once', async () => {
    const d = delta({ key: 'kp-4' });
    await send(d);
    await send(d);
    await eventually(outcomes, (all) => all.filter((o) => o.value.deltaId === d.id).length === 2);
    const events = await readTopic(t.service.log, 'acme.merchant_account.events', schemas.EntityEvent);
    expect(events.filter((e) => e.value.deltaId === d.id)).toHaveLength(1);
  });

  test('bytes that are not a DeltaEnvelope go to the rejections topic and processing goes on', async () => {
    await producer.send({ topic: 'deltas', messages: [{ key: 'garbage', value: Buffer.from('not avro at all') }] });
    const after = delta({ key: 'kp-5' });
    await send(after);
    expect((await outcomeOf(after.id)).status).toBe('accepted');
    const rejections = (await readTopic(t.service.log, 'rejections', schemas.Rejection)).map((r) => r.value);
    expect(rejections.some((r) => r.stage === 'decode' && r.source?.topic === 'deltas')).toBe(true);
  });

  test('a delta without proof of its actor is refused at stage 5 with the reason on rejections, and nothing is written', async () => {
    const d = delta({ key: 'kp-6', actor: { user: 'mallory', roles: ['admin'] } });
    await send(d, null);
    expect(await outcomeOf(d.id)).toMatchObject({ status: 'refused', stage: 'permission', code: 'DB_UNAUTHENTICATED' });
    const rejections = (await readTopic(t.service.log, 'rejections', schemas.Rejection)).map((r) => r.value);
    expect(rejections.find((r) => r.deltaId === d.id)).toMatchObject({ stage: 'permission', reason: 'DB_UNAUTHENTICATED' });
    const events = await readTopic(t.service.log, 'acme.merchant_account.events', schemas.EntityEvent);
    expect(events.some((e) => e.value.deltaId === d.id)).toBe(false);
  });

  test("claimed roles count for nothing: the token's roles decide, and the event carries them", async () => {
    const reader = delta({ key: 'kp-7', actor: { user: 'bob', roles: ['admin'] } });
    await send(reader, await t.token(['reader'], { sub: 'bob' }));
    expect(await outcomeOf(reader.id)).toMatchObject({ status: 'refused', stage: 'permission', code: 'DB_FORBIDDEN' });
    const writer = delta({ key: 'kp-8', actor: { user: 'carol', roles: ['admin'] } });
    await send(writer, await t.token(['writer'], { sub: 'carol' }));
    expect(await outcomeOf(writer.id)).toMatchObject({ status: 'accepted' });
    const events = await readTopic(t.service.log, 'acme.merchant_account.events', schemas.EntityEvent);
    const event = events.find((e) => e.value.deltaId === writer.id)!;
    expect(event.value.actor).toEqual({ user: 'carol', roles: ['writer'] });
    expect(Object.keys(event.headers)).not.toContain('authorization');
  });

  test("a token of another user or tenant, or one expired at the record's time, does not prove the actor", async () => {
    const otherUser = delta({ key: 'kp-9', actor: { user: 'dave', roles: ['writer'] } });
    await send(otherUser, await t.token(['writer'], { sub: 'eve' }));
    const otherTenant = delta({ key: 'kp-10', actor: { user: 'dave', roles: ['writer'] } });
    await send(otherTenant, await t.token(['writer'], { sub: 'dave', tenant: 'globex' }));
    const expired = delta({ key: 'kp-11', actor: { user: 'dave', roles: ['writer'] } });
    const shortLived = await t.token(['writer'], { sub: 'dave', ttlSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 7000)); // beyond the verifier's 5 s clock tolerance
    await send(expired, shortLived);
    expect(await outcomeOf(otherUser.id)).toMatchObject({ status: 'refused', stage: 'permission', code: 'DB_UNAUTHENTICATED' });
    expect(await outcomeOf(otherTenant.id)).toMatchObject({ status: 'refused', stage: 'permission', code: 'DB_FORBIDDEN' });
    expect(await outcomeOf(expired.id)).toMatchObject({ status: 'refused', stage: 'permission', code: 'DB_UNAUTHENTICATED' });
  }, 30_000);

  // On a Kafka cluster the persistence topics are guarded by the operator's ACLs, not by the service.
  embeddedBrokerOnly()('a client cannot produce a forged event to the persistence topic', async () => {
    const forger = new Kafka({ clientId: 'forger', brokers: t.service.brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer();
    await forger.connect();
    await expect(forger.send({ topic: 'acme.merchant_account.events', messages: [{ value: 'forged version 99' }] })).rejects.toMatchObject({
      type: 'TOPIC_AUTHORIZATION_FAILED',
    });
    await forger.disconnect();
  });
});
