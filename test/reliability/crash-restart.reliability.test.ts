import { generateDeltaStream, withoutNulls } from '../support/reliability/delta-stream';
import { diffProjection, foldEvents, inLogOrder, stableJson } from '../support/reliability/log-fold';
import { startupTimeline } from '../support/reliability/logged-process';
import { verifyThroughService } from '../support/reliability/service-verify';
import { reliabilityProfile } from '../support/reliability/profile';
import { Prng } from '../support/reliability/prng';
import { sleep, streamDeltas } from '../support/reliability/resilient-producer';
import { ACTION_TOPICS, EVENTS_TOPIC, schemas, ServiceUnderTest } from '../support/reliability/service-harness';
import { eventually, readTopic } from '../support/topics';

const profile = reliabilityProfile();
const N = profile.crashDeltas;
/** Deltas the producer may be ahead of the pipeline, so kills land while the producer is still streaming. */
const WINDOW = 3_000;

interface KillRecord {
  decidedAtKill: number;
  acknowledgedAtKill: number;
  listenMs: number;
  firstProgressMs: number;
  /** The three longest gaps of the start-up log, as [ms, the line before the gap, the line after it]. */
  slowestSteps: [number, string, string][];
}

function slowestSteps(lines: string[]): [number, string, string][] {
  const timeline = startupTimeline(lines);
  const gaps = timeline.slice(1).map((t, i): [number, string, string] => [t.ms - (timeline[i]?.ms ?? 0), timeline[i]?.msg ?? '', t.msg]);
  return gaps.sort((a, b) => b[0] - a[0]).slice(0, 3);
}

/**
 * kill -9 the service (pipeline, embedded broker and projectors in one process) at random points while a Kafka
 * producer streams N deltas; after the last restart every acknowledged delta is persisted exactly once, in per-key
 * order, the Postgres table equals a fresh fold of the log, and the action topics carry every persisted event once.
 */
describe(`crash: ${profile.kills} SIGKILLs while ${N} deltas stream in (seed ${profile.seed})`, () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await ServiceUnderTest.create();
  });
  afterAll(() => sut?.dispose());

  test(
    'every acknowledged delta is persisted once, in order, projected and announced',
    async () => {
      const started = Date.now();
      const stream = generateDeltaStream(N, profile.crashKeys, profile.seed);
      const prng = new Prng(profile.seed + 1);
      const killPoints = Array.from({ length: profile.kills }, () => prng.int(Math.floor(N * 0.05), Math.floor(N * 0.9))).sort((a, b) => a - b);
      const decidedCount = () => sut.count(`select count(*) as n from delta_outcomes where delta_id like $1`, [`rel-${profile.seed}-%`]);

      const firstStartMs = await sut.start();
      let decided = 0;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          decided = await decidedCount();
          await sleep(100);
        }
      })();

      let acknowledged = 0;
      const kills: KillRecord[] = [];
      // Kill points are counted in acknowledged deltas, so every kill lands while the producer still streams and the
      // pipeline has work in hand (the producer stays at most WINDOW ahead of it). Counted in decided deltas, a kill
      // point near the end could be reached after the producer was done, and a fast pipeline then decided the rest
      // before the kill, which only restarted an idle service.
      const killer = (async () => {
        for (const point of killPoints) {
          while (acknowledged < point) await sleep(5);
          await sleep(prng.int(0, 50));
          const acknowledgedAtKill = acknowledged;
          const decidedAtKill = await decidedCount();
          await sut.kill();
          await sleep(prng.int(100, 1_500));
          const restarted = Date.now();
          const listenMs = await sut.start();
          // Progress after the restart, unless every delta was already decided when it was killed (a fast pipeline
          // can finish the stream between reaching the kill point and the kill): then there is nothing left to show.
          await eventually(decidedCount, (n) => n > decidedAtKill || n >= N, 120_000);
          kills.push({
            decidedAtKill,
            acknowledgedAtKill,
            listenMs,
            firstProgressMs: Date.now() - restarted,
            slowestSteps: slowestSteps(sut.process?.lines ?? []),
          });
        }
      })();

      const produced = await streamDeltas(
        stream.deltas,
        {
          brokers: sut.brokers,
          registryUrl: sut.registryUrl,
          headers: await sut.actorProof(),
          batchSize: 200,
          mayProduce: (acked) => acked - decided < WINDOW,
          deadlineMs: 15 * 60_000,
        },
        (n) => void (acknowledged = n),
      );
      await killer;
      const lastAck = Date.now();
      await eventually(decidedCount, (n) => n >= N, 300_000);
      const drainMs = Date.now() - lastAck;
      polling = false;
      await poller;

      // Every delta was decided, and accepted: the stream is valid when applied in order, so a refusal is a bug.
      const refused = await sut.pg.query<{ delta_id: string; problem: unknown }>(
        `select delta_id, problem from delta_outcomes where status = 'refused' limit 5`,
      );
      expect(refused.rows).toEqual([]);
      expect(await sut.count(`select count(*) as n from delta_outcomes where status = 'accepted'`)).toBe(N);

      const log = await sut.openLog();
      try {
        const events = await readTopic(log, EVENTS_TOPIC, schemas.EntityEvent);
        // Exactly once: one event per delta id, whatever was redelivered or sent twice.
        const perDelta = new Map<string, number>();
        for (const e of events) perDelta.set(e.value.deltaId, (perDelta.get(e.value.deltaId) ?? 0) + 1);
        expect(perDelta.size).toBe(N);
        expect([...perDelta.entries()].filter(([, n]) => n !== 1)).toEqual([]);

        // Per-key order: the log holds each key's deltas in the generated order, at versions 1, 2, 3, …
        const byKey = new Map<string, { deltaIds: string[]; versions: number[] }>();
        for (const e of inLogOrder(events)) {
          const entry = byKey.get(e.value.key) ?? { deltaIds: [], versions: [] };
          entry.deltaIds.push(e.value.deltaId);
          entry.versions.push(Number(e.value.version));
          byKey.set(e.value.key, entry);
        }
        const outOfOrder = [...stream.orderByKey.entries()]
          .filter(([key, ids]) => stableJson(byKey.get(key)?.deltaIds) !== stableJson(ids))
          .map(([key]) => key);
        expect(outOfOrder).toEqual([]);
        const badVersions = [...byKey.entries()].filter(([, { versions }]) => versions.some((v, i) => v !== i + 1)).map(([key]) => key);
        expect(badVersions).toEqual([]);

        // The log's end state is the generated model's, and the table equals a fresh fold of the log.
        const folded = foldEvents(events);
        const modelMismatches = [...stream.finalDocs.entries()].filter(([key, doc]) => {
          const got = folded.get(key);
          return doc === undefined ? got !== undefined : got === undefined || stableJson(withoutNulls(got.doc)) !== stableJson(doc);
        });
        expect(modelMismatches.slice(0, 5)).toEqual([]);

        const endOffset = events.length;
        await eventually(
          () =>
            sut.count(
              `select coalesce(sum(next_offset), 0) as n from projection_checkpoints where projector = 'deltabroker-projector-postgres' and topic = $1`,
              [EVENTS_TOPIC],
            ),
          (n) => n >= endOffset,
          120_000,
        );
        const rows = await sut.pg.query<{ key: string; version: string; doc: Record<string, unknown> }>(
          `select _doc->>'merchantId' as key, _version as version, _doc as doc from tenant_acme.merchant_account`,
        );
        const diff = diffProjection(
          folded,
          rows.rows.map((r) => ({ key: r.key, version: Number(r.version), doc: r.doc })),
        );
        expect(diff).toEqual([]);
        const verified = await verifyThroughService(sut.url, await sut.token(['admin']), 'merchant_account');
        if (verified.available) expect(verified.report).toMatchObject({ equal: true });

        // Stage 3's state agrees with the log too (deleted records keep their last version).
        const lastVersion = new Map([...byKey.entries()].map(([key, { versions }]) => [key, versions.at(-1)]));
        const states = await sut.pg.query<{ record_key: string; version: string }>(
          `select record_key, version from record_state where entity = 'merchant_account'`,
        );
        expect(states.rows.filter((s) => lastVersion.get(s.record_key) !== Number(s.version)).slice(0, 5)).toEqual([]);
        expect(states.rows.length).toBe(lastVersion.size);

        // Action topics: every persisted event exactly once for a read_committed reader (this one): each round of the
        // emitters commits its actions and its input positions in one transaction, and a killed one's is aborted.
        const eventIds = new Set(events.map((e) => e.value.eventId));
        const duplicates: Record<string, number> = {};
        for (const topic of ACTION_TOPICS) {
          const actions = await eventually(
            () => readTopic(log, topic, schemas.ActionEvent),
            (a) => a.length >= eventIds.size,
            120_000,
          );
          const announced = new Set(actions.map((a) => a.value.eventId));
          expect([...eventIds].filter((id) => !announced.has(id)).slice(0, 5)).toEqual([]);
          duplicates[topic] = actions.length - announced.size;
        }

        console.log(
          JSON.stringify({
            crash: {
              seed: profile.seed,
              deltas: N,
              keys: profile.crashKeys,
              killPoints,
              firstStartMs,
              kills,
              failedSends: produced.failedSends,
              drainAfterLastAckMs: drainMs,
              events: events.length,
              tableRows: rows.rows.length,
              actionDuplicates: duplicates,
              serviceVerify: verified.available ? verified.equal : 'POST /admin/verify is not in this build',
              totalSeconds: Math.round((Date.now() - started) / 1000),
            },
          }),
        );
        expect(duplicates).toEqual(Object.fromEntries(ACTION_TOPICS.map((topic) => [topic, 0])));
        expect(kills).toHaveLength(profile.kills);
        // Every kill interrupted the stream: the producer had not sent everything yet.
        expect(kills.filter((k) => k.acknowledgedAtKill >= N)).toEqual([]);
      } finally {
        await log.close();
      }
    },
    30 * 60_000,
  );
});
