import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { BAD_KEY_PREFIX } from '../support/reliability/corpus/http-bodies';
import { hammerBrokerPort, noiseRecords, publishNoise } from '../support/reliability/corpus/kafka-noise';
import { buildHttpCorpus, runHttpCorpus, violation } from '../support/reliability/corpus/run-corpus';
import { loadTokenForge } from '../support/reliability/corpus/tokens';
import { reliabilityProfile } from '../support/reliability/profile';
import { Prng } from '../support/reliability/prng';
import { EVENTS_TOPIC, schemas, ServiceUnderTest } from '../support/reliability/service-harness';
import { post } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const profile = reliabilityProfile();
const KAFKA_NOISE = 300;
const PORT_NOISE = 200;
const HTTP_CASES = Math.max(profile.corpusSize - KAFKA_NOISE - PORT_NOISE, 100);
const SEEDED_RECORDS = 20;

/**
 * A seeded corpus of malformed input over HTTP, on the deltas topic and on the broker port: the service never
 * crashes, hangs or answers 5xx, explains every refusal, and nothing refused reaches the log or a table.
 * Reproduce one case with RELIABILITY_SEED and the case index printed with a failure.
 */
describe(`bad input: ${profile.corpusSize} malformed requests (seed ${profile.seed})`, () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await ServiceUnderTest.create();
    await sut.start();
  });
  afterAll(() => sut?.dispose());

  test(
    'no crash, no 5xx, no hang, every refusal explained, nothing half-written',
    async () => {
      const admin = await sut.token(['admin']);
      const ctx = {
        adminToken: admin,
        writerToken: await sut.token(['writer']),
        readerToken: await sut.token(['reader']),
        otherTenantToken: await sut.token(['admin'], { tenant: 'acme_merchant' }),
      };
      for (let i = 0; i < SEEDED_RECORDS; i++) {
        const res = await post(
          `${sut.url}/`,
          {
            dispatch: { entity: 'merchant_account', operation: 'create' },
            payload: { merchantId: `good-${i}`, name: `Good ${i}`, country: 'DE', mcc: 5000 + i },
          },
          { authorization: `Bearer ${admin}` },
        );
        expect(res.status).toBe(201);
      }
      const pid = sut.pid;
      const log = await sut.openLog();
      const snapshot = async () => ({
        events: (await readTopic(log, EVENTS_TOPIC, schemas.EntityEvent)).length,
        rows: await sut.count('select count(*) as n from tenant_acme.merchant_account'),
        states: await sut.count('select count(*) as n from record_state'),
        accepted: await sut.count(`select count(*) as n from delta_outcomes where status = 'accepted'`),
      });
      try {
        await eventually(
          () => sut.count('select count(*) as n from tenant_acme.merchant_account'),
          (n) => n === SEEDED_RECORDS,
          30_000,
        );
        const before = await snapshot();

        const cases = await buildHttpCorpus(HTTP_CASES, profile.seed, ctx, await loadTokenForge(sut.dataDir));
        const started = Date.now();
        const outcomes = await runHttpCorpus(sut.url, cases, 8, 30_000);
        const httpSeconds = (Date.now() - started) / 1000;

        const prng = new Prng(profile.seed + 5);
        const deltaSchemaId = await new SchemaRegistry({ host: sut.registryUrl }).getLatestSchemaId('deltas-value');
        const rejectionsBefore = (await readTopic(log, 'rejections', schemas.Rejection)).filter((r) => r.value.stage === 'decode').length;
        await publishNoise(sut.brokers, noiseRecords(KAFKA_NOISE, prng, deltaSchemaId));
        const decodeRejections = await eventually(
          async () => (await readTopic(log, 'rejections', schemas.Rejection)).filter((r) => r.value.stage === 'decode').length - rejectionsBefore,
          (n) => n >= KAFKA_NOISE,
          60_000,
        );
        const port = await hammerBrokerPort(sut.kafkaPort, PORT_NOISE, prng);

        // Still the same process, still healthy, still writing.
        expect(sut.alive).toBe(true);
        expect(sut.pid).toBe(pid);
        expect((await fetch(`${sut.url}/ready`)).status).toBe(200);
        const after = await post(
          `${sut.url}/`,
          { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'good-after', name: 'After' } },
          { authorization: `Bearer ${admin}` },
        );
        expect(after.status).toBe(201);

        const violations = outcomes.map((o) => ({ o, why: violation(o) })).filter((v) => v.why !== undefined);
        const report = violations
          .slice(0, 15)
          .map(
            ({ o, why }) =>
              `#${o.index} ${o.case.category} (${o.case.note}) ${o.case.method} ${o.case.path}: ${why} ${JSON.stringify(o.body ?? {}).slice(0, 160)}`,
          );
        expect(report).toEqual([]);

        // Nothing refused was written: the only change is the one good write after the corpus.
        await eventually(
          () => sut.count('select count(*) as n from tenant_acme.merchant_account'),
          (n) => n >= before.rows + 1,
          30_000,
        );
        const end = await snapshot();
        expect(end).toEqual({ events: before.events + 1, rows: before.rows + 1, states: before.states + 1, accepted: before.accepted + 1 });
        expect(await sut.count(`select count(*) as n from record_state where record_key like $1`, [`${BAD_KEY_PREFIX}%`])).toBe(0);
        expect(await sut.count(`select count(*) as n from tenant_acme.merchant_account where _doc->>'merchantId' like $1`, [`${BAD_KEY_PREFIX}%`])).toBe(0);

        const byCategory: Record<string, Record<string, number>> = {};
        for (const o of outcomes) {
          const bucket = (byCategory[o.case.category] ??= {});
          const label = o.status < 400 ? `answered ${o.status}` : `${o.status} ${String(o.body?.code)}`;
          bucket[label] = (bucket[label] ?? 0) + 1;
        }
        const slowest = Math.max(...outcomes.map((o) => o.ms));
        console.log(
          JSON.stringify({
            badInput: {
              seed: profile.seed,
              total: outcomes.length + KAFKA_NOISE + PORT_NOISE,
              http: outcomes.length,
              httpSeconds,
              slowestMs: slowest,
              byCategory,
              kafkaNoise: { records: KAFKA_NOISE, decodeRejections },
              brokerPort: port,
            },
          }),
        );
      } finally {
        await log.close();
      }
    },
    20 * 60_000,
  );
});
