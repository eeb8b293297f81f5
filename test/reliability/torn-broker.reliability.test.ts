import fs from 'node:fs';
import path from 'node:path';
import { generateDeltaStream } from '../support/reliability/delta-stream';
import { reliabilityProfile } from '../support/reliability/profile';
import { Prng } from '../support/reliability/prng';
import { readRawTopic, startRawSenders } from '../support/reliability/raw-records';
import { streamDeltas } from '../support/reliability/resilient-producer';
import { EVENTS_TOPIC, schemas, ServiceUnderTest } from '../support/reliability/service-harness';
import { activeSegments, recoveryProblem, tearSegment, TORN_SHAPES, type TornSegment } from '../support/reliability/torn-tail';
import { post } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const profile = reliabilityProfile();
const RAW_TOPIC = 'reliability.torn';
const DELTAS = 4_000;

/**
 * SIGKILL the service process that hosts the embedded broker while producers write to it, then append what a torn
 * write leaves (partial header, half batch, bad CRC, stale offset, noise) to the active segment of every partition
 * of every topic: after restart each acknowledged record is there once, the torn bytes are cut, the pipeline goes on.
 */
describe(`broker crash with torn writes (seed ${profile.seed})`, () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await ServiceUnderTest.create();
  });
  afterAll(() => sut?.dispose());

  test(
    'acknowledged records survive, torn tails are cut, the service goes on',
    async () => {
      const prng = new Prng(profile.seed + 2);
      await sut.start();
      const stream = generateDeltaStream(DELTAS, 300, profile.seed + 3, 'torn');
      const deltaIds = `rel-${profile.seed + 3}-%`;

      const raw = startRawSenders(sut.brokers, RAW_TOPIC, 4, 25);
      let deltasAcked = 0;
      // Deltas keep pace with the raw records until the restart, so the kill also lands mid-way through them.
      let released = false;
      const deltaStream = streamDeltas(
        stream.deltas,
        {
          brokers: sut.brokers,
          registryUrl: sut.registryUrl,
          headers: await sut.actorProof(),
          batchSize: 100,
          deadlineMs: 10 * 60_000,
          mayProduce: (acked) => released || acked < raw.acknowledged.length * 0.3,
        },
        (n) => void (deltasAcked = n),
      );

      const killAfter = prng.int(5_000, 15_000);
      await eventually(
        async () => raw.acknowledged.length,
        (n) => n >= killAfter,
        120_000,
      );
      await sut.kill();
      await raw.stop();
      const rawAcked = [...raw.acknowledged];
      const deltasAckedAtKill = deltasAcked;

      const kafkaDir = path.join(sut.dataDir, 'kafka');
      const torn: TornSegment[] = [];
      for (const topic of fs.readdirSync(path.join(kafkaDir, 'topics'))) {
        for (const file of activeSegments(kafkaDir, topic)) torn.push(tearSegment(file, prng.pick(TORN_SHAPES), prng));
      }

      const restarted = Date.now();
      const listenMs = await sut.start();
      released = true;
      // Recovery cut exactly the torn bytes: nothing acknowledged before them, nothing of them.
      expect(torn.map((t) => ({ file: t.file, shape: t.shape, problem: recoveryProblem(t) })).filter((t) => t.problem !== undefined)).toEqual([]);

      const { records, highWatermarks } = await readRawTopic(sut.brokers, RAW_TOPIC);
      expect(records).toHaveLength(highWatermarks);
      const values = new Set(records.map((r) => r.value));
      expect(values.size).toBe(records.length);
      expect(rawAcked.filter((v) => !values.has(v)).slice(0, 5)).toEqual([]);
      for (const partition of new Set(records.map((r) => r.partition))) {
        const offsets = records
          .filter((r) => r.partition === partition)
          .map((r) => r.offset)
          .sort((a, b) => a - b);
        expect(offsets).toEqual(offsets.map((_, i) => i));
      }

      // The pipeline picks up where it was: every delta decided and persisted exactly once.
      const produced = await deltaStream;
      const decided = () => sut.count(`select count(*) as n from delta_outcomes where delta_id like $1 and status = 'accepted'`, [deltaIds]);
      await eventually(decided, (n) => n >= DELTAS, 300_000);
      const recoveredMs = Date.now() - restarted;
      const log = await sut.openLog();
      try {
        const events = await readTopic(log, EVENTS_TOPIC, schemas.EntityEvent);
        const perDelta = new Map<string, number>();
        for (const e of events) perDelta.set(e.value.deltaId, (perDelta.get(e.value.deltaId) ?? 0) + 1);
        expect(perDelta.size).toBe(DELTAS);
        expect([...perDelta.values()].every((n) => n === 1)).toBe(true);
      } finally {
        await log.close();
      }

      // The repaired log takes new writes, over Kafka and over HTTP.
      const after = startRawSenders(sut.brokers, RAW_TOPIC, 1, 10);
      await eventually(
        async () => after.acknowledged.length,
        (n) => n >= 10,
        30_000,
      );
      await after.stop();
      const token = await sut.token(['admin']);
      const written = await post(
        `${sut.url}/`,
        { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'after-torn', name: 'After' } },
        { authorization: `Bearer ${token}` },
      );
      expect(written.status).toBe(201);

      console.log(
        JSON.stringify({
          tornBroker: {
            rawAcknowledged: rawAcked.length,
            rawOnLog: records.length,
            deltasAcknowledgedAtKill: deltasAckedAtKill,
            deltas: DELTAS,
            deltaResends: produced.failedSends,
            segmentsTorn: torn.length,
            shapes: Object.fromEntries(TORN_SHAPES.map((s) => [s, torn.filter((t) => t.shape === s).length])),
            bytesCut: torn.reduce((sum, t) => sum + t.appended, 0),
            listenMs,
            recoveredMs,
          },
        }),
      );
    },
    15 * 60_000,
  );
});
