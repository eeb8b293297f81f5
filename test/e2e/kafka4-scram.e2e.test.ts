/**
 * The service on Kafka 4's SASL_PLAINTEXT listener, authenticating with SCRAM as a user Kafka itself holds (written
 * at format time by the test engines): writes go through and reach the action topic, SCRAM-SHA-512 works as well,
 * and a wrong password stops the start with an error that names the cause, not a hang.
 */
import { Kafka, logLevel } from 'kafkajs';
import { describeWithEngines, KAFKA_SCRAM_USER, realEngineServiceEnv } from '../support/engines';
import { testEntitiesDir } from '../support/entities';
import { emptyKafka } from '../support/kafka-reset';
import { post, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/topics';

jest.setTimeout(120_000);

describeWithEngines(['kafka', 'registry'], 'the service on Kafka 4 over SASL/SCRAM', (engines) => {
  const saslBrokers = engines.kafka?.saslBrokers.join(',') ?? '';
  const scramEnv = (mechanism: string, password = KAFKA_SCRAM_USER.password): Record<string, string> => ({
    ...realEngineServiceEnv(engines),
    DELTABROKER_KAFKA_BROKERS: saslBrokers,
    DELTABROKER_KAFKA_SASL_USERNAME: KAFKA_SCRAM_USER.name,
    DELTABROKER_KAFKA_SASL_PASSWORD: password,
    DELTABROKER_KAFKA_SASL_MECHANISM: mechanism,
    DELTABROKER_ENTITIES_DIR: testEntitiesDir(),
  });
  let t: TestService | undefined;

  beforeAll(() => emptyKafka(engines.kafka?.brokers ?? []));
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  test.each(['scram-sha-256', 'scram-sha-512'])('with %s a write is accepted, persisted and announced', async (mechanism) => {
    t = await startTestService({ env: scramEnv(mechanism) });
    const token = await t.token(['admin', 'writer']);
    const merchantId = `m-${mechanism}`;
    const created = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId, name: 'Over SCRAM' } },
      { authorization: `Bearer ${token}` },
    );
    expect(created.status).toBe(201);
    // An outside reader authenticates the same way and finds the event on the action topic.
    const kafka = new Kafka({
      brokers: engines.kafka?.saslBrokers ?? [],
      sasl: { mechanism: mechanism as 'scram-sha-256', username: KAFKA_SCRAM_USER.name, password: KAFKA_SCRAM_USER.password },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await eventually(
        () => admin.fetchTopicOffsets('acme.merchant_account.actions.global'),
        (offsets) => offsets.reduce((sum, p) => sum + Number(p.high), 0) >= 1,
      );
    } finally {
      await admin.disconnect();
    }
  });

  test('a wrong password fails the start, saying that SASL authentication failed', async () => {
    await expect(startTestService({ env: { ...scramEnv('scram-sha-256', 'not-the-password'), DELTABROKER_WRITE_TIMEOUT_MS: '2000' } })).rejects.toThrow(
      /SASL|authentication/i,
    );
  });
});
