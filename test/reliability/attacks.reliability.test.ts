import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel } from 'kafkajs';
import {
  ATTACK_KEY_PREFIX,
  claimedRoleDeltas,
  deleteTopicCases,
  forgedEventCases,
  idleFlood,
  registryCases,
  type AttackCase,
} from '../support/reliability/corpus/attacks';
import { reliabilityProfile } from '../support/reliability/profile';
import { ACTION_TOPICS, EVENTS_TOPIC, schemas, ServiceUnderTest } from '../support/reliability/service-harness';
import { post } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const profile = reliabilityProfile();
/** Idle connections of the flood: several times the broker's cap (1000), from nine loopback addresses. */
const FLOOD = profile.name === 'ci' ? 3_000 : 12_000;
const GOOD_WRITES = 10;

/**
 * Issue 16's attacks on a running service, through real clients (kafkajs producer and admin, HTTP to the
 * registry, raw sockets): every one is refused the way Kafka and Confluent clients report it, and afterwards the
 * log, the tables, the registry and the service are exactly as the good writes alone would leave them.
 */
describe('attacks on the broker and the registry', () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await ServiceUnderTest.create();
    await sut.start();
  });
  afterAll(() => sut?.dispose());

  test(
    'each attack is refused; nothing is written or lost; the service keeps answering',
    async () => {
      const admin = await sut.token(['admin']);
      const write = (id: string) =>
        post(
          `${sut.url}/`,
          { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: id, name: `Good ${id}` } },
          { authorization: `Bearer ${admin}` },
        );
      for (let i = 0; i < GOOD_WRITES / 2; i++) expect((await write(`good-${i}`)).status).toBe(201);
      const pid = sut.pid;
      const log = await sut.openLog();
      const registry = new SchemaRegistry({ host: sut.registryUrl });
      const registryState = async () => ({
        deltas: await registry.getLatestSchemaId('deltas-value'),
        events: await registry.getLatestSchemaId(`${EVENTS_TOPIC}-value`),
        config: await (await fetch(`${sut.registryUrl}/config`)).json(),
        versions: await (await fetch(`${sut.registryUrl}/subjects/deltas-value/versions`)).json(),
      });
      const snapshot = async () => ({
        events: (await readTopic(log, EVENTS_TOPIC, schemas.EntityEvent)).length,
        actions: (await readTopic(log, ACTION_TOPICS[0] as string, schemas.ActionEvent)).length,
        rows: await sut.count('select count(*) as n from tenant_acme.merchant_account'),
        accepted: await sut.count(`select count(*) as n from delta_outcomes where status = 'accepted'`),
      });
      const target = {
        brokers: sut.brokers,
        registryUrl: sut.registryUrl,
        dataDir: sut.dataDir,
        eventsTopic: EVENTS_TOPIC,
        reservedTopics: [EVENTS_TOPIC, ...ACTION_TOPICS, 'rejections', 'deltabroker.outcomes'],
        token: (roles: string[], o: { sub?: string; tenant?: string } = {}) => sut.token(roles, o),
      };
      try {
        await eventually(
          () => sut.count('select count(*) as n from tenant_acme.merchant_account'),
          (n) => n === GOOD_WRITES / 2,
          30_000,
        );
        await eventually(
          async () => (await snapshot()).actions,
          (n) => n === GOOD_WRITES / 2,
          30_000,
        );
        const before = await snapshot();
        const registryBefore = await registryState();

        // Forged events, topic deletion and alteration, registry mutations: the refusal each client sees.
        const cases: AttackCase[] = [...(await forgedEventCases(target)), ...deleteTopicCases(target), ...registryCases(target)];
        const outcomes = [];
        for (const c of cases) outcomes.push({ attack: c.attack, note: c.note, expected: c.expected, got: await c.run() });
        expect(outcomes.filter((o) => o.got !== o.expected)).toEqual([]);

        // Deltas claiming admin without proof: each refused at stage 5, with its reason on the rejections topic.
        const claims = await claimedRoleDeltas(target);
        const deltaSchemaId = await registry.getLatestSchemaId('deltas-value');
        const producer = new Kafka({ clientId: 'claimer', brokers: sut.brokers, logLevel: logLevel.NOTHING }).producer();
        await producer.connect();
        for (const c of claims) {
          await producer.send({
            topic: 'deltas',
            acks: -1,
            messages: [{ key: `acme/merchant_account/${c.delta.key}`, value: await registry.encode(deltaSchemaId, c.delta), headers: c.headers }],
          });
        }
        await producer.disconnect();
        const ids = new Set(claims.map((c) => c.delta.id));
        const rejections = await eventually(
          async () => (await readTopic(log, 'rejections', schemas.Rejection)).map((r) => r.value).filter((r) => ids.has(r.deltaId ?? '')),
          (found) => found.length === claims.length,
          60_000,
        );
        const verdicts = claims.map((c) => {
          const r = rejections.find((x) => x.deltaId === c.delta.id);
          return { note: c.note, expected: c.expected, got: r && `${r.stage} ${r.reason}` };
        });
        expect(verdicts.filter((v) => v.got !== v.expected)).toEqual([]);

        // A flood of idle connections: HTTP and writes keep answering while it is open.
        const flood = await idleFlood(sut.kafkaPort, FLOOD);
        try {
          expect(flood.connected).toBeGreaterThan(1000);
          expect(flood.open).toBeLessThanOrEqual(1000);
          expect((await fetch(`${sut.url}/health`)).status).toBe(200);
          for (let i = GOOD_WRITES / 2; i < GOOD_WRITES; i++) expect((await write(`good-${i}`)).status).toBe(201);
        } finally {
          flood.stop();
        }

        // Same process, ready, and exactly the good writes' effects: nothing forged, claimed or deleted got in.
        expect(sut.alive).toBe(true);
        expect(sut.pid).toBe(pid);
        expect((await fetch(`${sut.url}/ready`)).status).toBe(200);
        await eventually(
          () => sut.count('select count(*) as n from tenant_acme.merchant_account'),
          (n) => n === GOOD_WRITES,
          30_000,
        );
        await eventually(
          async () => (await snapshot()).actions,
          (n) => n === before.actions + GOOD_WRITES / 2,
          30_000,
        );
        expect(await snapshot()).toEqual({
          events: before.events + GOOD_WRITES / 2,
          actions: before.actions + GOOD_WRITES / 2,
          rows: GOOD_WRITES,
          accepted: before.accepted + GOOD_WRITES / 2,
        });
        expect(await sut.count(`select count(*) as n from tenant_acme.merchant_account where _doc->>'merchantId' like $1`, [`${ATTACK_KEY_PREFIX}%`])).toBe(0);
        expect(await sut.count(`select count(*) as n from tenant_acme.merchant_account where _version <> 1`)).toBe(0);
        expect(await registryState()).toEqual(registryBefore);

        const byAttack: Record<string, number> = {};
        for (const o of outcomes) byAttack[o.attack] = (byAttack[o.attack] ?? 0) + 1;
        console.log(
          JSON.stringify({
            attacks: { ...byAttack, 'claimed-roles': claims.length, idleFlood: { connections: FLOOD, connected: flood.connected, heldByBroker: flood.open } },
          }),
        );
      } finally {
        await log.close();
      }
    },
    10 * 60_000,
  );
});
