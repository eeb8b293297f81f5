/**
 * Clients over SASL/SCRAM-SHA-256 against a service whose broker requires it, with the settings docs/security.md
 * shows (the test checks the page still shows them): kafka-python, kcat and kafkajs each produce a delta
 * proven by its actor's token and read it back from the action topic; the log tool beside the running service
 * authenticates with the service's `client` credentials. A client without SASL is turned away.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { DeltaEnvelope } from '../../src/log';
import { pythonCannot, PYTHON } from '../integration/embedded-kafka/python/run-python';
import { testEntitiesDir } from '../support/entities';
import { runCommand } from '../support/run-command';
import { startTestService, type TestService } from '../support/service';
import { eventually } from '../support/topics';

const ROOT = path.resolve(__dirname, '../..');
const SECURITY_PAGE = readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');
const ACTIONS = 'acme.merchant_account.actions.global';
const haveKcat = spawnSync('kcat', ['-V']).status === 0;
const noPython = pythonCannot('import kafka');
if (!haveKcat || noPython) console.warn(`SKIPPED parts of the SASL clients suite: ${haveKcat ? '' : 'kcat is not installed; '}${noPython ?? ''}`);

const tool = (args: string[], input?: string): Promise<Buffer> =>
  runCommand(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/log/tool.ts'), ...args], input);
const python = (args: string[]): Promise<Record<string, unknown>> =>
  runCommand(PYTHON, [path.join(__dirname, 'clients/kafka_python_sasl.py'), ...args]).then(
    (out) => JSON.parse(out.toString('utf8')) as Record<string, unknown>,
  );

describe('Kafka clients over SASL/SCRAM-SHA-256 (broker requires SASL)', () => {
  let t: TestService;
  let password = '';
  let bootstrap = '';

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir(), DELTABROKER_KAFKA_SASL_REQUIRED: 'true' } });
    password = (JSON.parse(readFileSync(path.join(t.config.dataDir, 'credentials/kafka.json'), 'utf8')) as { client: { password: string } }).client.password;
    bootstrap = t.service.brokers.join(',');
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** A delta for `key` as Avro wire bytes made by the log tool, and its actor's proof. */
  const encodedDelta = async (key: string): Promise<{ id: string; file: string; authorization: string }> => {
    const delta: Omit<DeltaEnvelope, 'requestId' | 'expectedVersion' | 'retryOf'> = {
      id: randomUUID(),
      tenant: 'acme',
      entity: 'merchant_account',
      operation: 'create',
      key,
      payload: JSON.stringify({ merchantId: key, name: 'Over SASL' }),
      actor: { user: 'batch', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
    };
    const file = path.join(t.config.dataDir, `${key}.bin`);
    writeFileSync(
      file,
      await tool(
        ['encode', '--data-dir', t.config.dataDir, '--registry', t.service.registryUrl, '--topic', 'deltas', '--schema', 'DeltaEnvelope'],
        JSON.stringify(delta),
      ),
    );
    return { id: delta.id, file, authorization: `Bearer ${await t.token(['writer'], { sub: 'batch' })}` };
  };
  const messageKey = (key: string): string => `acme/merchant_account/${key}`;

  (noPython ? test.skip : test)('kafka-python produces a proven delta and reads it from the action topic', async () => {
    expect(SECURITY_PAGE).toContain(
      "KafkaProducer(bootstrap_servers=bootstrap, security_protocol='SASL_PLAINTEXT', sasl_mechanism='SCRAM-SHA-256', sasl_plain_username='client', sasl_plain_password=pw)",
    );
    expect(SECURITY_PAGE).toContain(
      "KafkaConsumer(topic, bootstrap_servers=bootstrap, security_protocol='SASL_PLAINTEXT', sasl_mechanism='SCRAM-SHA-256', sasl_plain_username='client', sasl_plain_password=pw,",
    );
    const d = await encodedDelta('sasl-py');
    expect(await python([bootstrap, password, 'produce', 'deltas', messageKey('sasl-py'), d.file, d.authorization])).toMatchObject({
      offset: expect.any(Number),
    });
    await eventually(
      () => python([bootstrap, password, 'find', ACTIONS, d.id]),
      (r) => r.found === true,
      30_000,
    );
  });

  (haveKcat ? test : test.skip)('kcat with its standard SASL settings produces a proven delta and reads the action topic', async () => {
    const sasl = [
      '-X',
      'security.protocol=SASL_PLAINTEXT',
      '-X',
      'sasl.mechanisms=SCRAM-SHA-256',
      '-X',
      'sasl.username=client',
      '-X',
      `sasl.password=${password}`,
    ];
    expect(SECURITY_PAGE).toContain(`kcat -b 127.0.0.1:9092 ${sasl.join(' ').replace(password, '$PW')} -C -t ${ACTIONS} -e`);
    const d = await encodedDelta('sasl-kcat');
    await runCommand('kcat', [
      '-P',
      '-b',
      bootstrap,
      ...sasl,
      '-t',
      'deltas',
      '-k',
      messageKey('sasl-kcat'),
      '-H',
      `authorization=${d.authorization}`,
      '-X',
      'partitioner=murmur2_random',
      d.file,
    ]);
    await eventually(
      async () => (await runCommand('kcat', ['-b', bootstrap, ...sasl, '-C', '-t', ACTIONS, '-e', '-o', 'beginning', '-q'])).toString('latin1'),
      (out) => out.includes(d.id),
      30_000,
    );
  });

  test('kafkajs with sasl scram-sha-256 produces a proven delta and reads the action topic; without SASL it is turned away', async () => {
    expect(SECURITY_PAGE).toContain("new Kafka({ brokers, sasl: { mechanism: 'scram-sha-256', username: 'client', password } })");
    const brokers = t.service.brokers;
    const kafka = new Kafka({ brokers, sasl: { mechanism: 'scram-sha-256', username: 'client', password }, logLevel: logLevel.NOTHING });
    const d = await encodedDelta('sasl-kafkajs');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: 'deltas',
      messages: [{ key: messageKey('sasl-kafkajs'), value: readFileSync(d.file), headers: { authorization: d.authorization } }],
    });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: `sasl-reader-${randomUUID()}` });
    const seen: Buffer[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [ACTIONS], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void (message.value && seen.push(message.value)) });
      await eventually(
        async () => seen.some((v) => v.includes(d.id)),
        (found) => found,
        30_000,
      );
    } finally {
      await consumer.disconnect();
    }
    const anonymous = new Kafka({ brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000 }).admin();
    await expect(anonymous.connect().then(() => anonymous.listTopics())).rejects.toThrow();
    await anonymous.disconnect();
  });

  test('the log tool beside the running service reads over SASL with the service’s client credentials', async () => {
    const d = await encodedDelta('sasl-tool');
    const producer = new Kafka({
      brokers: t.service.brokers,
      sasl: { mechanism: 'scram-sha-256', username: 'client', password },
      logLevel: logLevel.NOTHING,
    }).producer();
    await producer.connect();
    await producer.send({
      topic: 'deltas',
      messages: [{ key: messageKey('sasl-tool'), value: readFileSync(d.file), headers: { authorization: d.authorization } }],
    });
    await producer.disconnect();
    const lines = await eventually(
      async () =>
        (
          await tool([
            'read',
            '--data-dir',
            t.config.dataDir,
            '--brokers',
            bootstrap,
            '--registry',
            t.service.registryUrl,
            '--topic',
            'acme.merchant_account.events',
          ])
        ).toString('utf8'),
      (out) => out.includes(d.id),
      30_000,
    );
    expect(
      lines
        .split('\n')
        .filter((l) => l.includes(d.id))
        .map((l) => (JSON.parse(l) as { value: { key: string } }).value.key),
    ).toEqual(['sasl-tool']);
    // Without credentials (another data directory, no flags) the broker turns the tool away.
    await expect(
      tool([
        'read',
        '--data-dir',
        path.join(t.config.dataDir, 'nowhere'),
        '--brokers',
        bootstrap,
        '--registry',
        t.service.registryUrl,
        '--topic',
        'acme.merchant_account.events',
      ]),
    ).rejects.toThrow();
  });
});
