/**
 * Scale-out under faults on the real engines: three deltabroker instances (two in dc1, one in dc2) share the run's
 * Kafka 4 cluster of three, its registry, OpenSearch (when it runs) and one PostgreSQL database. First the decide
 * rate with one, two and three instances; then 20,000 deltas, half HTTP writes spread over the instances and half
 * from a Kafka producer
 * with proven actors, while one instance is SIGKILLed, then the Kafka broker that leads most `deltas` partitions,
 * and both are restarted. Afterwards every acknowledged delta is applied once and in per-key order, the table and
 * search index equal a replay of the log, the action topics are complete (local ones only with their own
 * datacenter's events), every partition of every service group is held by a live instance, and all are ready.
 */
import path from 'node:path';
import { loadSchemas } from '../../src/log';
import { SEARCH_PROJECTOR_GROUP } from '../../src/log/topology';
import { isAlive } from '../../src/stack/engine-process';
import { killKafkaNode, restartKafkaNode } from '../../src/stack/kafka-cluster';
import { describeWithEngines, realEngineServiceEnv, saveEngineState } from '../support/engines';
import { emptyKafka } from '../support/kafka-reset';
import { deleteSearchIndices } from '../support/search-reset';
import { generateDeltaStream, withoutNulls } from '../support/reliability/delta-stream';
import { diffProjection, foldEvents, inLogOrder, stableJson } from '../support/reliability/log-fold';
import { streamDeltas } from '../support/reliability/resilient-producer';
import { verifyThroughService } from '../support/reliability/service-verify';
import { Fleet } from '../support/scale-out/fleet';
import { busiestLeader, endOffsets, partitionsOf, readGroupAssignments } from '../support/scale-out/group-assignments';
import { writeOverHttp } from '../support/scale-out/http-writer';
import { eventually, readTopic } from '../support/topics';
import { openKafkaWriteLog } from '../../src/log/kafka';

const schemas = loadSchemas();
const EVENTS = 'acme.merchant_account.events';
const GLOBAL = 'acme.merchant_account.actions.global';
const ENTITIES = path.resolve(__dirname, '../../config/entities');
const PER_HALF = Number(process.env.SCALE_OUT_DELTAS ?? 20_000) / 2;
const RATE_DELTAS = 2_000;
const SEED = 20261126;
/** The fleet searches on OpenSearch when the run started it; SCALE_OUT_SEARCH=postgres keeps search in PostgreSQL. */
const SEARCH_ON_OPENSEARCH = process.env.SCALE_OUT_SEARCH !== 'postgres';
/**
 * The load phase takes 90–300 s on the machines here. A stall fails the stage it stops at within these bounds, with
 * the stage's name, well before jest's own timeout (whose message says nothing of where).
 */
const LOAD_DEADLINE_MS = 12 * 60_000;
const STAGE_DEADLINE_MS = 180_000;

jest.setTimeout(30 * 60_000);

describeWithEngines(['kafka', 'registry'], 'scale-out: three instances on Kafka 4 with an instance and a broker killed', (engines) => {
  const cluster = engines.kafka;
  const brokers = cluster?.brokers ?? [];
  let fleet: Fleet;
  const report: Record<string, unknown> = {};

  beforeAll(async () => {
    await emptyKafka(brokers);
    if (engines.opensearch) await deleteSearchIndices(engines.opensearch.url);
    fleet = await Fleet.create(
      [
        { name: 'a', datacenter: 'dc1' },
        { name: 'b', datacenter: 'dc1' },
        { name: 'c', datacenter: 'dc2' },
      ],
      {
        ...realEngineServiceEnv(engines),
        ...(SEARCH_ON_OPENSEARCH && engines.opensearch && { DELTABROKER_OPENSEARCH_URL: engines.opensearch.url }),
      },
      ENTITIES,
    );
  });
  afterAll(async () => {
    // What a failure needs to be understood from CI's output alone: the instances' last errors, the projectors'
    // checkpoints beside the partitions' ends.
    if (fleet) report.diagnosis = { ...(await fleet.diagnosis()), ends: await endOffsets(brokers, [EVENTS]).catch((e: unknown) => String(e)) };
    console.log(JSON.stringify({ scaleOut: report }, null, 2));
    try {
      if (fleet) console.log(`scale-out instances stopped in ${JSON.stringify(await fleet.dispose())} ms`);
    } finally {
      // A broker this suite killed and did not get back to is started again for the suites after it, even when an
      // instance did not stop cleanly.
      for (const node of cluster?.nodes ?? []) {
        if (!isAlive(node.process.pid) && cluster) await restartKafkaNode(cluster, node.id);
      }
      if (cluster) saveEngineState({ ...engines, kafka: cluster });
    }
  });

  /** `work`, whose failure names the stage it belongs to and how each instance was doing then. */
  const stage = async <T>(name: string, work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      const brief = [
        ...(await fleet.brief().catch((e: unknown) => [`no diagnosis: ${String(e)}`])),
        ...(await fleet.stacks().catch((e: unknown) => [`no stacks: ${String(e)}`])),
      ];
      throw new Error([`${name}: ${(error as Error).message}`, ...brief].join('\n'), { cause: error });
    }
  };
  const decided = (prefix: string) => fleet.count(`select count(*) as n from delta_outcomes where delta_id like $1`, [`${prefix}%`]);
  const proof = async () => ({ authorization: `Bearer ${await fleet.token(['admin'], 'reliability')}` });

  test('the decide rate with one, two and three instances', async () => {
    const rates: { instances: number; deltasPerSecond: number; startMs: number }[] = [];
    for (const [i, instance] of fleet.instances.entries()) {
      const startMs = await instance.start();
      const prefix = `rate${i}-`;
      const stream = generateDeltaStream(RATE_DELTAS, RATE_DELTAS, SEED + i, `rate${i}`);
      const deltas = stream.deltas.map((d, n) => ({ ...d, id: `${prefix}${n}` }));
      const started = Date.now();
      await streamDeltas(
        deltas,
        { brokers, registryUrl: engines.registry?.url ?? '', headers: await proof(), batchSize: 200, deadlineMs: 300_000 },
        () => undefined,
      );
      await eventually(
        () => decided(prefix),
        (n) => n >= RATE_DELTAS,
        300_000,
      );
      rates.push({ instances: i + 1, deltasPerSecond: Math.round((RATE_DELTAS * 1000) / (Date.now() - started)), startMs });
    }
    report.rates = rates;
    expect(rates).toHaveLength(3);
  });

  test('20,000 deltas through an instance kill and a broker kill: applied once, in order, projected and announced', async () => {
    const kafkaStream = generateDeltaStream(PER_HALF, 400, SEED, 'kp');
    const httpStream = generateDeltaStream(PER_HALF, 800, SEED + 7, 'hp');
    const httpDeltas = httpStream.deltas.map((d, n) => ({ ...d, id: `hp-${SEED}-${n}` }));
    const total = PER_HALF * 2;
    let acknowledged = { kafka: 0, http: 0 };
    const acked = () => acknowledged.kafka + acknowledged.http;
    const decidedAll = async () => (await decided(`rel-${SEED}-`)) + (await decided(`hp-${SEED}-`));

    const acknowledgedReach = (share: number) =>
      stage(
        `${share * 100} % of the deltas acknowledged`,
        eventually(
          async () => acked(),
          (n) => n >= total * share,
          LOAD_DEADLINE_MS,
        ),
      );

    const faults = (async () => {
      const [, victim] = fleet.instances;
      if (victim === undefined || cluster === undefined) throw new Error('no fleet');
      await acknowledgedReach(0.25);
      const atInstanceKill = await decidedAll();
      const instanceKilled = Date.now();
      await victim.kill();
      await stage(
        'progress after the instance kill',
        eventually(decidedAll, (n) => n > atInstanceKill + 200, STAGE_DEADLINE_MS),
      );
      const pipelineRebalanced = await stage(
        'the pipeline group rebalanced to the two live instances',
        eventually(
          () => readGroupAssignments(brokers, 'deltabroker-pipeline'),
          (groups) => groups.every((g) => g.state === 'Stable' && g.members.length === 2),
          STAGE_DEADLINE_MS,
        ),
      );
      report.instanceKill = { atAcknowledged: acked(), progressAfterMs: Date.now() - instanceKilled, pipelineMembers: pipelineRebalanced[0]?.members.length };

      await acknowledgedReach(0.5);
      const leader = await busiestLeader(brokers, 'deltas');
      const atBrokerKill = await decidedAll();
      const brokerKilled = Date.now();
      await killKafkaNode(cluster, leader.nodeId);
      await stage(
        'progress after the broker kill',
        eventually(decidedAll, (n) => n > atBrokerKill + 200, STAGE_DEADLINE_MS),
      );
      report.brokerKill = {
        nodeId: leader.nodeId,
        ledDeltasPartitions: leader.partitions,
        atAcknowledged: acked(),
        progressAfterMs: Date.now() - brokerKilled,
      };

      await acknowledgedReach(0.75);
      const restarted = Date.now();
      await stage('the instance and the broker restarted', Promise.all([victim.start(), restartKafkaNode(cluster, leader.nodeId)]));
      report.restart = { bothUpMs: Date.now() - restarted, atAcknowledged: acked() };
    })();

    const started = Date.now();
    const [produced, written] = await Promise.all([
      stage(
        'the Kafka producer',
        streamDeltas(
          kafkaStream.deltas,
          { brokers, registryUrl: engines.registry?.url ?? '', headers: await proof(), batchSize: 100, deadlineMs: LOAD_DEADLINE_MS },
          (n) => void (acknowledged = { ...acknowledged, kafka: n }),
        ),
      ),
      stage(
        'the HTTP writers',
        writeOverHttp(httpDeltas, { instances: () => fleet.live(), token: await fleet.token(['admin']), workers: 32, deadlineMs: LOAD_DEADLINE_MS }, (n) => {
          acknowledged = { ...acknowledged, http: n };
        }),
      ),
      faults,
    ]);
    await stage(
      'every delta decided',
      eventually(decidedAll, (n) => n >= total, 300_000),
    );
    const sorted = [...written.latencies].sort((a, b) => a - b);
    report.load = {
      deltas: total,
      seconds: (Date.now() - started) / 1000,
      kafkaFailedSends: produced.failedSends,
      httpRetries: written.retries,
      httpP50Ms: sorted[Math.floor(sorted.length * 0.5)],
      httpP99Ms: sorted[Math.floor(sorted.length * 0.99)],
    };

    const refused = await fleet.pg.query(`select delta_id, problem from delta_outcomes where status = 'refused' limit 5`);
    expect(refused.rows).toEqual([]);

    const log = await openKafkaWriteLog({ brokers, registryUrl: engines.registry?.url ?? '', clientId: 'scale-out-reader' });
    try {
      const events = (await readTopic(log, EVENTS, schemas.EntityEvent)).filter((e) => !e.value.key.startsWith('rate'));
      const perDelta = new Map<string, number>();
      for (const e of events) perDelta.set(e.value.deltaId, (perDelta.get(e.value.deltaId) ?? 0) + 1);
      expect(perDelta.size).toBe(total);
      expect([...perDelta.entries()].filter(([, n]) => n !== 1)).toEqual([]);

      // Per-key order and versions 1, 2, 3, … for both halves.
      const byKey = new Map<string, string[]>();
      const versions = new Map<string, number[]>();
      for (const e of inLogOrder(events)) {
        byKey.set(e.value.key, [...(byKey.get(e.value.key) ?? []), e.value.deltaId]);
        versions.set(e.value.key, [...(versions.get(e.value.key) ?? []), Number(e.value.version)]);
      }
      const httpOrder = new Map<string, string[]>();
      for (const d of httpDeltas) httpOrder.set(d.key, [...(httpOrder.get(d.key) ?? []), d.id]);
      const expectedOrder = new Map([...kafkaStream.orderByKey, ...httpOrder]);
      const outOfOrder = [...expectedOrder.entries()].filter(([key, ids]) => stableJson(byKey.get(key)) !== stableJson(ids));
      expect(outOfOrder.map(([key]) => key).slice(0, 5)).toEqual([]);
      expect(
        [...versions.entries()]
          .filter(([, v]) => v.some((x, i) => x !== i + 1))
          .map(([key]) => key)
          .slice(0, 5),
      ).toEqual([]);

      // The end state is the generated model's, the table equals a fold of the log, and the service's verify agrees.
      const folded = foldEvents(events);
      const model = new Map([...kafkaStream.finalDocs, ...httpStream.finalDocs]);
      const mismatches = [...model.entries()].filter(([key, doc]) => {
        const got = folded.get(key);
        return doc === undefined ? got !== undefined : got === undefined || stableJson(withoutNulls(got.doc)) !== stableJson(doc);
      });
      expect(mismatches.slice(0, 5)).toEqual([]);
      const allEvents = await readTopic(log, EVENTS, schemas.EntityEvent);
      await stage(
        'the table projector through the whole topic',
        eventually(
          () =>
            fleet.count(
              `select coalesce(sum(next_offset), 0) as n from projection_checkpoints where projector = 'deltabroker-projector-postgres' and topic = $1`,
              [EVENTS],
            ),
          (n) => n >= allEvents.length,
          300_000,
        ),
      );
      const rows = await fleet.pg.query<{ key: string; version: string; doc: Record<string, unknown> }>(
        `select _doc->>'merchantId' as key, _version as version, _doc as doc from tenant_acme.merchant_account where _doc->>'merchantId' not like 'rate%'`,
      );
      expect(
        diffProjection(
          folded,
          rows.rows.map((r) => ({ key: r.key, version: Number(r.version), doc: r.doc })),
        ),
      ).toEqual([]);
      if (SEARCH_ON_OPENSEARCH && engines.opensearch) {
        // Every row is a document of the entity's OpenSearch index with the same fields, and no document is more,
        // once the search projector (its own group, behind the table's at times) has applied the whole topic.
        await stage(
          'the search projector through the whole topic',
          eventually(
            () =>
              fleet.count(`select coalesce(sum(next_offset), 0) as n from projection_checkpoints where projector = $1 and topic = $2`, [
                SEARCH_PROJECTOR_GROUP,
                EVENTS,
              ]),
            (n) => n >= allEvents.length,
            300_000,
          ),
        );
        const all = await fleet.pg.query<{ key: string; doc: Record<string, unknown> }>(
          `select _doc->>'merchantId' as key, _doc as doc from tenant_acme.merchant_account`,
        );
        const found = (await (
          await fetch(`${engines.opensearch.url}/acme__merchant_account/_search?size=10000`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: { match_all: {} }, track_total_hits: true }),
          })
        ).json()) as { hits: { total: { value: number }; hits: { _id: string; _source: Record<string, unknown> }[] } };
        expect(found.hits.total.value).toBe(found.hits.hits.length);
        const documents = new Map(found.hits.hits.map((h) => [String(h._source.merchantId), h._source]));
        const differing = all.rows.filter((row) => {
          const source = documents.get(row.key);
          return source === undefined || Object.entries(withoutNulls(row.doc)).some(([field, value]) => stableJson(source[field]) !== stableJson(value));
        });
        expect(differing.map((r) => r.key).slice(0, 5)).toEqual([]);
        expect(documents.size).toBe(all.rows.length);
      }
      const [first] = fleet.instances;
      const verified = await verifyThroughService(first?.url ?? '', await fleet.token(['admin']), 'merchant_account');
      expect(verified).toMatchObject({ available: true, equal: true });

      // Action topics: the global one announces every event; each local one only its own datacenter's.
      const originOf = new Map(allEvents.map((e) => [e.value.eventId, e.value.origin.datacenter]));
      const duplicates: Record<string, number> = {};
      const global = await stage(
        'every event announced on the global action topic',
        eventually(
          () => readTopic(log, GLOBAL, schemas.ActionEvent),
          (a) => new Set(a.map((x) => x.value.eventId)).size >= originOf.size,
          300_000,
        ),
      );
      duplicates[GLOBAL] = global.length - new Set(global.map((a) => a.value.eventId)).size;
      expect([...originOf.keys()].filter((id) => !global.some((a) => a.value.eventId === id)).slice(0, 5)).toEqual([]);
      for (const dc of ['dc1', 'dc2']) {
        const own = [...originOf.entries()].filter(([, origin]) => origin === dc).map(([id]) => id);
        const topic = `acme.merchant_account.actions.${dc}`;
        const local = await stage(
          `every ${dc} event announced on its local action topic`,
          eventually(
            () => readTopic(log, topic, schemas.ActionEvent),
            (a) => new Set(a.map((x) => x.value.eventId)).size >= own.length,
            300_000,
          ),
        );
        expect(local.filter((a) => originOf.get(a.value.eventId) !== dc).length).toBe(0);
        expect(new Set(local.map((a) => a.value.eventId)).size).toBe(own.length);
        duplicates[topic] = local.length - own.length;
      }
      report.actionDuplicates = duplicates;
    } finally {
      await log.close();
    }

    // Every partition of every service group is held by a member, and every group has the live instances as members.
    const groups = await stage(
      'every service group stable',
      eventually(
        () => readGroupAssignments(brokers, 'deltabroker-'),
        (gs) =>
          gs.filter((g) => !g.groupId.startsWith('deltabroker-replay') && !g.groupId.startsWith('deltabroker-outcomes')).every((g) => g.state === 'Stable'),
        120_000,
      ),
    );
    const unheld: string[] = [];
    for (const group of groups.filter((g) => g.state === 'Stable' && !g.groupId.startsWith('deltabroker-outcomes'))) {
      const held = new Set(group.members.flatMap((m) => m.partitions));
      const topics = [...new Set([...held].map((p) => p.slice(0, p.lastIndexOf('/'))))];
      for (const p of await partitionsOf(brokers, topics)) if (!held.has(p)) unheld.push(`${group.groupId}: ${p}`);
    }
    expect(unheld).toEqual([]);
    const pipeline = groups.find((g) => g.groupId === 'deltabroker-pipeline');
    expect(pipeline?.members).toHaveLength(3);
    report.groups = groups.map((g) => ({ group: g.groupId, members: g.members.length }));

    // Every instance ready; an unready one shows which of its checks is down.
    const readiness = await Promise.all(
      fleet.instances.map(async (instance) => {
        const answer = await fetch(`${instance.url}/ready`);
        return { instance: instance.spec.name, status: answer.status, body: answer.status === 200 ? undefined : await answer.json() };
      }),
    );
    expect(readiness.filter((r) => r.status !== 200)).toEqual([]);
  });
});
