import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { reservedResourcesAuthorizer } from '../../../src/embedded/kafka';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { RawClient } from './raw-client';
import { FAST_GROUP, type TestBroker, startTestBroker, waitFor } from './harness';

const run = promisify(execFile);
const USERS = { deltabroker: 'service-secret', client: 'client-secret' };
const authorizer = reservedResourcesAuthorizer({
  owner: 'deltabroker',
  reservedTopic: (t) => t === 'deltas' || t.endsWith('.events') || t === 'rejections',
  openForProduce: (t) => t === 'deltas',
  undeletable: (t) => t.endsWith('.events'),
  reservedGroup: (g) => g.startsWith('deltabroker-'),
  reservedTransactionalId: (id) => id.startsWith('deltabroker-'),
});

const client = (broker: TestBroker, sasl?: SASLOptions): Kafka =>
  new Kafka({ clientId: 'security-test', brokers: broker.kafka.brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 }, ...(sasl && { sasl }) });
const service: SASLOptions = { mechanism: 'scram-sha-256', username: 'deltabroker', password: USERS.deltabroker };
const other: SASLOptions = { mechanism: 'scram-sha-256', username: 'client', password: USERS.client };

/** The Kafka error a kafkajs call failed with: its type name, e.g. TOPIC_AUTHORIZATION_FAILED. */
async function kafkaError(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    const e = error as { type?: string; errors?: { type?: string }[]; originalError?: { type?: string }; message: string };
    return e.type ?? e.originalError?.type ?? e.errors?.[0]?.type ?? e.message;
  }
  throw new Error('expected a refusal');
}

describe('embedded kafka: SASL', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ saslUsers: USERS, saslRequired: true, authorizer });
  });
  afterAll(() => broker.stop());

  test.each<SASLOptions>([
    { mechanism: 'scram-sha-256', username: 'client', password: USERS.client },
    { mechanism: 'plain', username: 'client', password: USERS.client },
  ])('kafkajs authenticates with %p, produces and reads back', async (sasl) => {
    const kafka = client(broker, sasl);
    const producer = kafka.producer();
    await producer.connect();
    const topic = `sasl-${sasl.mechanism}`;
    await kafka.admin().connect();
    await producer.send({ topic, messages: [{ key: 'k', value: 'v' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: `g-${sasl.mechanism}`, ...FAST_GROUP });
    const got: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) });
    await waitFor(() => got.length === 1, 20_000, 'the record');
    await consumer.disconnect();
    expect(got).toEqual(['v']);
  });

  test('a wrong password is SASL_AUTHENTICATION_FAILED (SCRAM and PLAIN), an unknown user too', async () => {
    for (const sasl of [
      { mechanism: 'scram-sha-256', username: 'client', password: 'wrong' },
      { mechanism: 'plain', username: 'client', password: 'wrong' },
      { mechanism: 'scram-sha-256', username: 'nobody', password: 'x' },
    ] as SASLOptions[]) {
      const producer = client(broker, sasl).producer();
      expect(await kafkaError(producer.connect())).toMatch(/SASL|authentication failed/i);
    }
  });

  test('without SASL, a client gets no answer but a closed connection, and writes nothing', async () => {
    const producer = client(broker).producer();
    await expect(
      (async () => {
        await producer.connect();
        await producer.send({ topic: 'anonymous', messages: [{ value: 'x' }] });
      })(),
    ).rejects.toThrow();
    await producer.disconnect();
    const admin = client(broker, other).admin();
    await admin.connect();
    expect(await admin.listTopics()).not.toContain('anonymous');
    await admin.disconnect();
  });

  test('kcat authenticates with SCRAM-SHA-256 and PLAIN and produces; a wrong password fails', async () => {
    for (const mechanism of ['SCRAM-SHA-256', 'PLAIN']) {
      const topic = `kcat-${mechanism.toLowerCase()}`;
      const args = [
        '-b',
        broker.kafka.brokers[0]!,
        '-X',
        'security.protocol=SASL_PLAINTEXT',
        '-X',
        `sasl.mechanisms=${mechanism}`,
        '-X',
        'sasl.username=client',
      ];
      const child = run('kcat', [...args, '-X', `sasl.password=${USERS.client}`, '-P', '-t', topic], { timeout: 20_000 });
      child.child.stdin!.end('hello\n');
      await child;
      const back = await run('kcat', [...args, '-X', `sasl.password=${USERS.client}`, '-C', '-t', topic, '-e', '-q'], { timeout: 20_000 });
      expect(back.stdout.trim()).toBe('hello');
      await expect(run('kcat', [...args, '-X', 'sasl.password=wrong', '-L', '-m', '5'], { timeout: 20_000 })).rejects.toThrow(/Authentication failed|SASL/i);
    }
  });
});

describe('embedded kafka: authorization of reserved topics and groups', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ saslUsers: USERS, authorizer });
    const admin = client(broker, service).admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: 'acme.merchant_account.events', numPartitions: 1 },
        { topic: 'deltas', numPartitions: 1 },
        { topic: 'rejections', numPartitions: 1 },
      ],
    });
    await admin.disconnect();
  });
  afterAll(() => broker.stop());

  const topicEnd = async (topic: string): Promise<string> => {
    const admin = client(broker, service).admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    return offsets.map((o) => o.high).join(',');
  };

  test.each([undefined, other])('a client (%p) cannot produce to a persistence topic, but to deltas and its own topics', async (sasl) => {
    const producer = client(broker, sasl).producer({ allowAutoTopicCreation: true });
    await producer.connect();
    expect(await kafkaError(producer.send({ topic: 'acme.merchant_account.events', messages: [{ value: 'forged' }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await kafkaError(producer.send({ topic: 'rejections', messages: [{ value: 'forged' }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    await producer.send({ topic: 'deltas', messages: [{ value: 'delta' }] });
    await producer.send({ topic: 'my-own-topic', messages: [{ value: 'mine' }] });
    await producer.disconnect();
    expect(await topicEnd('acme.merchant_account.events')).toBe('0');
  });

  test('a client cannot delete, alter, grow or pre-create a reserved topic; nobody deletes a persistence topic', async () => {
    const admin = client(broker, other).admin();
    await admin.connect();
    expect(await kafkaError(admin.deleteTopics({ topics: ['deltas'] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await kafkaError(admin.createPartitions({ topicPartitions: [{ topic: 'deltas', count: 5 }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(
      await kafkaError(
        admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'deltas', configEntries: [{ name: 'retention.ms', value: '1' }] }] }),
      ),
    ).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(await kafkaError(admin.createTopics({ topics: [{ topic: 'globex.account.events' }] }))).toBe('TOPIC_AUTHORIZATION_FAILED');
    await admin.createTopics({ topics: [{ topic: 'scratch' }] });
    await admin.deleteTopics({ topics: ['scratch'] });
    await admin.disconnect();
    const owner = client(broker, service).admin();
    await owner.connect();
    expect(await kafkaError(owner.deleteTopics({ topics: ['acme.merchant_account.events'] }))).toBe('POLICY_VIOLATION');
    expect(await owner.listTopics()).toEqual(expect.arrayContaining(['acme.merchant_account.events', 'deltas']));
    await owner.disconnect();
  });

  test("a client cannot join, commit or delete the service's consumer groups", async () => {
    // JoinGroup v2 on a bare connection: group, session and rebalance timeouts, member id, protocol type, one protocol.
    const raw = await RawClient.connect(broker.kafka.port);
    const body = new Writer()
      .string('deltabroker-pipeline')
      .int32(10_000)
      .int32(10_000)
      .string('')
      .string('consumer')
      .int32(1)
      .string('range')
      .bytes(Buffer.alloc(0))
      .toBuffer();
    const reply = await raw.request(11, 2, 7, body);
    raw.close();
    expect(reply.readInt32BE(0)).toBe(7);
    expect(reply.readInt16BE(4 + 4)).toBe(30); // after the correlation id and the throttle time: GROUP_AUTHORIZATION_FAILED
    // OffsetCommit v2: group, generation, member, retention, one topic with one partition.
    const commit = new Writer()
      .string('deltabroker-pipeline')
      .int32(-1)
      .string('')
      .int64(-1)
      .int32(1)
      .string('deltas')
      .int32(1)
      .int32(0)
      .int64(0)
      .nullableString(null)
      .toBuffer();
    const raw2 = await RawClient.connect(broker.kafka.port);
    const committed = await raw2.request(8, 2, 9, commit);
    raw2.close();
    expect(committed.readInt16BE(committed.length - 2)).toBe(30);
    const admin = client(broker, other).admin();
    await admin.connect();
    const deleted = await admin.deleteGroups(['deltabroker-pipeline']).catch((e: { groups?: { errorCode: number }[] }) => e.groups ?? []);
    expect(deleted.map((g) => g.errorCode)).toEqual([30]);
    await admin.disconnect();
  });
});

describe("embedded kafka: the service's transactional ids", () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ saslUsers: USERS, saslRequired: true, authorizer });
  });
  afterAll(() => broker.stop());

  test("a client cannot take the service's transactional id (which would fence its emitter); the service can, and the client's own ids work", async () => {
    // An idempotent producer needs retries, which client() turns off.
    const transactional = (sasl: SASLOptions, transactionalId: string) =>
      new Kafka({ clientId: 'security-test', brokers: broker.kafka.brokers, logLevel: logLevel.NOTHING, sasl }).producer({
        transactionalId,
        idempotent: true,
        maxInFlightRequests: 1,
      });
    const owner = transactional(service, 'deltabroker-emitter-global.instance-1');
    await owner.connect();
    const first = await owner.transaction();
    await first.send({ topic: 'acme.merchant_account.actions.global', messages: [{ key: 'k', value: 'v' }] });
    await first.commit();

    const intruder = transactional(other, 'deltabroker-emitter-global.instance-1');
    await intruder.connect();
    expect(await kafkaError(intruder.transaction())).toBe('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
    await intruder.disconnect();
    // The service's producer was not fenced: its next transaction commits.
    const second = await owner.transaction();
    await second.send({ topic: 'acme.merchant_account.actions.global', messages: [{ key: 'k', value: 'w' }] });
    await second.commit();
    await owner.disconnect();

    const own = transactional(other, 'client-app-1');
    await own.connect();
    const mine = await own.transaction();
    await mine.send({ topic: 'client-topic', messages: [{ key: 'k', value: 'v' }] });
    await mine.commit();
    await own.disconnect();
    expect(
      broker.kafka.parts.transactions
        .states()
        .map((s) => s.transactionalId)
        .sort(),
    ).toEqual(['client-app-1', 'deltabroker-emitter-global.instance-1']);
  });
});

describe('embedded kafka: connection limits and idle timeout', () => {
  test('connections beyond the caps are closed at once; existing clients keep working; idle ones are closed', async () => {
    const broker = await startTestBroker({ maxConnections: 20, maxConnectionsPerIp: 10, connectionsMaxIdleMs: 1500 });
    try {
      const producer = broker.client('survivor').producer();
      await producer.connect();
      await producer.send({ topic: 'survives', messages: [{ value: 'before' }] });
      const port = broker.kafka.port;
      const sockets: net.Socket[] = [];
      let closedEarly = 0;
      for (let i = 0; i < 50; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.on('close', () => closedEarly++);
        sockets.push(s);
      }
      await waitFor(() => closedEarly >= 50 - 10 + 1, 5000, 'the connections beyond the per-address cap to close');
      await producer.send({ topic: 'survives', messages: [{ value: 'during' }] });
      await waitFor(() => closedEarly === 50, 10_000, 'the idle connections to close');
      await producer.send({ topic: 'survives', messages: [{ value: 'after' }] });
      await producer.disconnect();
    } finally {
      await broker.stop();
    }
  });
});
