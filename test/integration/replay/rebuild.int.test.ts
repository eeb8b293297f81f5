/**
 * Replay and rebuild against the embedded broker and the PostgreSQL server, with live table and search
 * projectors running: the swap, the handover (nothing lost, nothing applied twice), resuming an interrupted
 * replay, a changed configuration, dry runs, and verify.
 */
import { physicalNamesOf } from '../../../src/tenant';
import { qualifiedTable } from '../../support/entities';
import { planReplay, projectionReplay, rebuildProjections, verifyProjection } from '../../../projections/replay';
import { ReplayJobs, type ReplayJobView } from '../../../src/broker/replay-jobs';
import { ReplayProgress } from '../../../src/replay';
import type { EntityConfig } from '../../../src/tenant';
import { accountConfig, expectedRows, historyOf, lastPerPartition, openReplayHarness, uniqueName, type EventSpec, type ReplayHarness } from './replay-harness';
import { scratchPostgres } from '../../support/scratch-sql';

type Row = { accountId: string; name: unknown; _version: unknown };

describe('replay and rebuild on PostgreSQL', () => {
  let h: ReplayHarness;

  beforeAll(async () => {
    const { sql, close } = await scratchPostgres('dbt_replay');
    h = await openReplayHarness(sql, close);
  });
  afterAll(async () => h?.close());
  afterEach(async () => h.stopLive());

  const rowsOf = async (config: EntityConfig): Promise<Map<string, { version: number; name: unknown }>> => {
    const { rows } = await h.sql.query<Row>(`select "accountId", name, "_version" from ${qualifiedTable(config)}`);
    return new Map(rows.map((r) => [r.accountId, { version: Number(r._version), name: r.name }]));
  };
  /** The search index's documents: key → name (which names the version in these histories). */
  const documentsOf = async (config: EntityConfig): Promise<Map<string, unknown>> => {
    const answer = await h.search.search(physicalNamesOf(config).index, { query: { match_all: {} }, size: 1000 });
    return new Map(answer.hits.hits.map((hit) => [hit._id, hit._source?.name]));
  };
  const sorted = (m: Map<string, unknown>): [string, unknown][] => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

  test('rebuilds into a shadow while the live table answers, swaps it in, and hands over without losing or doubling an event', async () => {
    const config = h.put(accountConfig(uniqueName('acct')));
    await h.startLive();
    const history = historyOf(1500, 2);
    await h.applied(lastPerPartition(await h.publish(config, history)));

    // Writes and reads while the replay runs.
    const during: EventSpec[] = [];
    let writing = true;
    const writer = (async () => {
      for (let round = 0; writing || round < 3; round += 1) {
        const batch: EventSpec[] = [];
        for (let i = 0; i < 20; i += 1)
          batch.push({ operation: 'create', key: `w${round}_${i}`, version: 1, payload: { accountId: `w${round}_${i}`, name: `written during ${round}` } });
        await h.publish(config, batch);
        during.push(...batch);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const reads: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        reads.push(Number((await h.sql.query<{ n: string }>(`select count(*) as n from ${qualifiedTable(config)}`)).rows[0]?.n));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    const progress = new ReplayProgress();
    const phases = new Set<string>();
    progress.onChange((p) => phases.add(p.phase));
    const result = await rebuildProjections(h.context(), { tenant: 'acme', entity: config.entity }, { progress, catchUpThreshold: 0 });
    writing = false;
    await writer;
    reading = false;
    await reader;

    expect(phases).toEqual(new Set(['preparing', 'replaying', 'swapping', 'done', ...(phases.has('catching-up') ? ['catching-up'] : [])]));
    expect(progress.snapshot()).toMatchObject({ phase: 'done' });
    expect(result.targets.map((t) => t.kind)).toEqual(['postgres', 'search']);
    expect(reads.length).toBeGreaterThan(5);
    expect(Math.min(...reads)).toBeGreaterThanOrEqual(expectedRows(history).size); // never an empty or missing table

    const all = [...history, ...during];
    const last = await h.publish(config, [{ operation: 'create', key: 'after', version: 1, payload: { accountId: 'after', name: 'after the swap' } }]);
    await h.applied(last);
    await h.applied(lastPerPartition(await h.publish(config, [])));
    const expected = expectedRows([...all, { operation: 'create', key: 'after', version: 1, payload: { name: 'after the swap' } }]);
    expect(sorted(await rowsOf(config))).toEqual(sorted(expected));

    // After the handover the live projector applied exactly the offsets from its new checkpoint on, each once.
    expect(during.length).toBeGreaterThan(0);
    const handover = new Map((result.targets[0]?.handover ?? []).map((p) => [p.partition, BigInt(p.after)]));
    if (process.env.TEST_LOG)
      console.log(
        JSON.stringify({
          passes: result.passes,
          swapMs: result.swapMs,
          events: result.events,
          during: during.length,
          handover: result.targets.map((t) => t.handover),
        }),
      );
    const afterSwap = h.reports.filter((r) => r.topic === config.persistence.topic && BigInt(r.checkpointBefore) >= (handover.get(r.partition) ?? 0n));
    for (const [partition, from] of handover) {
      const applied = afterSwap.filter((r) => r.partition === partition).flatMap((r) => r.appliedOffsets.map(BigInt));
      const end = BigInt((await h.log.topicOffsets(config.persistence.topic)).find((p) => p.partition === partition)?.high ?? '0');
      const wanted: bigint[] = [];
      for (let o = from; o < end; o += 1n) wanted.push(o);
      expect(applied.sort((a, b) => (a < b ? -1 : 1))).toEqual(wanted);
    }
    expect(afterSwap.flatMap((r) => r.appliedOffsets).length).toBeGreaterThan(0);
    // Nothing of the shadow is left behind.
    const leftovers = await h.sql.query(`select 1 from projection_checkpoints where projector like 'deltabroker-rebuild-%' and topic = $1`, [
      config.persistence.topic,
    ]);
    expect(leftovers.rows).toEqual([]);
    expect((await h.sql.query<{ t: string | null }>(`select to_regclass($1)::text as t`, [qualifiedTable(config, '__rebuild')])).rows[0]?.t).toBeNull();

    // The search index was swapped too, and the live search projector goes on into it.
    const hits = await h.search.search(physicalNamesOf(config).index, { query: { match_all: {} }, track_total_hits: true, size: 0 });
    expect(hits.hits.total?.value).toBe(expected.size);

    const verdict = await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity });
    expect(verdict).toMatchObject({ equal: true, differingRows: 0 });
    expect(verdict.live?.checksum).toBe(verdict.replay.checksum);
  });

  test('--dry-run reports topics, partitions, events and targets, and writes nothing', async () => {
    const config = h.put(accountConfig(uniqueName('dry')));
    await h.startLive();
    await h.applied(lastPerPartition(await h.publish(config, historyOf(30, 2))));
    const plan = await planReplay(h.context(), { tenant: 'acme', entity: config.entity, from: { kind: 'offset', offset: 5n } });
    expect(plan).toMatchObject({ topic: config.persistence.topic, from: 'offset 5', sharedTopic: false });
    expect(plan.partitions).toHaveLength(3);
    expect(plan.partitions.reduce((n, p) => n + Number(p.high), 0)).toBe(30 * 2 + 5);
    expect(plan.events).toBe(plan.partitions.reduce((n, p) => n + Number(p.high) - Math.min(5, Number(p.high)), 0));
    const names = physicalNamesOf(config);
    expect(plan.targets.map((t) => [t.kind, t.live, t.shadow, t.resumable])).toEqual([
      ['postgres', `${names.schema}.${names.table}`, `${names.schema}.${names.table}__rebuild`, false],
      ['search', names.index, `${names.index}__rebuild`, false],
    ]);
    expect((await h.sql.query<{ t: string | null }>(`select to_regclass($1)::text as t`, [qualifiedTable(config, '__rebuild')])).rows[0]?.t).toBeNull();
  });

  test('a record whose newest event cannot be projected is rebuilt as the live projectors applied it: its earlier events, without that one', async () => {
    const config = h.put(accountConfig(uniqueName('unusable')));
    await h.startLive();
    const history: EventSpec[] = [
      ...historyOf(300, 2),
      { operation: 'update', key: 'k1', version: 3, rawPayload: '["not", "an", "object"]' },
      { operation: 'update', key: 'k2', version: 3, payload: { accountId: 'k2', name: 'k2 v3' } },
      // The table takes it (a column of another type is left out of the row), the search index refuses it.
      { operation: 'update', key: 'k3', version: 3, payload: { accountId: 'k3', name: 'k3 v3', mcc: 'not a number' } },
    ];
    // The search projector gets past both events and goes on: every position is applied by both projectors.
    await h.applied(lastPerPartition(await h.publish(config, history)));
    const live = await rowsOf(config);
    expect(live.get('k1')).toEqual({ version: 2, name: 'k1 v2' });
    const liveDocuments = await documentsOf(config);
    expect(liveDocuments.get('k1')).toBe('k1 v2');
    expect(liveDocuments.get('k2')).toBe('k2 v3');
    expect(liveDocuments.get('k3')).toBe('k3 v2');
    expect(liveDocuments.size).toBe(expectedRows(historyOf(300, 2)).size);
    await h.stopLive();

    await rebuildProjections(h.context(), { tenant: 'acme', entity: config.entity });
    expect(sorted(await rowsOf(config))).toEqual(sorted(live));
    expect(sorted(await documentsOf(config))).toEqual(sorted(liveDocuments));
    expect(await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity })).toMatchObject({ equal: true, differingRows: 0 });
  });

  test('a replay interrupted halfway resumes from its shadow checkpoints and ends equal to a clean replay', async () => {
    const config = h.put(accountConfig(uniqueName('resume')));
    await h.startLive();
    const history = historyOf(2000, 3);
    await h.applied(lastPerPartition(await h.publish(config, history)));

    const controller = new AbortController();
    const progress = new ReplayProgress();
    let doneAtAbort = 0;
    progress.onChange((p) => {
      if (!controller.signal.aborted && p.phase === 'replaying' && p.done > 0 && p.done >= p.total / 3) {
        doneAtAbort = p.done;
        controller.abort();
      }
    });
    await expect(
      rebuildProjections(h.context(), { tenant: 'acme', entity: config.entity, target: 'postgres' }, { progress, signal: controller.signal }),
    ).rejects.toBeDefined();
    expect(progress.snapshot().phase).toBe('interrupted');
    expect(doneAtAbort).toBeLessThan(history.length);
    const plan = await planReplay(h.context(), { tenant: 'acme', entity: config.entity, target: 'postgres' });
    expect(plan.targets[0]?.resumable).toBe(true);

    const resumedRun = await rebuildProjections(h.context(), { tenant: 'acme', entity: config.entity, target: 'postgres' });
    expect(resumedRun.targets[0]?.resumed).toBe(true);
    expect(sorted(await rowsOf(config))).toEqual(sorted(expectedRows(history)));
    const verdict = await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity });
    expect(verdict).toMatchObject({ equal: true, differingRows: 0, columnsMissingInLive: [] });
    expect(verdict.replay.rows).toBe(expectedRows(history).size);
  });

  test('verify finds a tampered row, a missing row and an extra row, and passes on an untouched projection', async () => {
    const config = h.put(accountConfig(uniqueName('tamper')));
    await h.startLive();
    await h.applied(lastPerPartition(await h.publish(config, historyOf(200, 2))));
    const table = qualifiedTable(config);
    expect(await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity })).toMatchObject({ equal: true });

    await h.sql.query(`update ${table} set name = 'tampered' where "accountId" = 'k1'`);
    const tampered = await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity });
    expect(tampered.equal).toBe(false);
    expect(tampered.live?.checksum).not.toBe(tampered.replay.checksum);
    expect(tampered.differences).toEqual([{ key: '(k1)', kind: 'differs', liveVersion: 2, replayVersion: 2 }]);

    await h.sql.query(`delete from ${table} where "accountId" = 'k2'`);
    await h.sql.query(
      `insert into ${table} select 'ghost', name, mcc, score, "_doc", "_version", "_event_id", "_position", "_updated_at" from ${table} where "accountId" = 'k3'`,
    );
    const worse = await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity });
    expect(worse).toMatchObject({ equal: false, differingRows: 3 });
    expect(worse.live?.rows).toBe(worse.replay.rows);
    expect(worse.differences.map((d) => [d.key, d.kind])).toEqual([
      ['(ghost)', 'missing-in-replay'],
      ['(k1)', 'differs'],
      ['(k2)', 'missing-in-live'],
    ]);
    // Verify leaves no shadow behind.
    expect((await h.sql.query<{ t: string | null }>(`select to_regclass($1)::text as t`, [qualifiedTable(config, '__verify')])).rows[0]?.t).toBeNull();
  });

  test('after a configuration change (a field added, a field retyped) the rebuilt table has the new shape', async () => {
    const entity = uniqueName('reshape');
    const v1 = h.put(accountConfig(entity));
    // The search projector would refuse these documents (2.5 in an integer field): only the table projector runs.
    await h.startLive({ search: false });
    const specs: EventSpec[] = [
      { operation: 'create', key: 'a', version: 1, payload: { accountId: 'a', name: 'A', score: 2.5, tier: 'gold' } },
      { operation: 'create', key: 'b', version: 1, payload: { accountId: 'b', name: 'B', score: 3, tier: 'silver' } },
    ];
    await h.applied(await h.publish(v1, specs));
    await h.stopLive();
    const before = (await h.sql.query<{ score: unknown }>(`select score from ${qualifiedTable(v1)} order by "accountId"`)).rows;
    expect(before.map((r) => r.score)).toEqual([null, '3']); // 2.5 is no integer

    const v2 = h.put({ ...accountConfig(entity, { score: { type: 'number' }, tier: { type: 'string' } }), version: 2 });
    await rebuildProjections(h.context(), { tenant: 'acme', entity: v2.entity, target: 'postgres' });
    const columns = await h.sql.query<{ column_name: string; data_type: string }>(
      `select column_name, data_type from information_schema.columns where table_name = $1 and column_name in ('score', 'tier') order by column_name`,
      [v2.persistence.table],
    );
    expect(columns.rows).toEqual([
      { column_name: 'score', data_type: 'double precision' },
      { column_name: 'tier', data_type: 'text' },
    ]);
    const after = (await h.sql.query<{ score: number; tier: string }>(`select score, tier from ${qualifiedTable(v2)} order by "accountId"`)).rows;
    expect(after).toEqual([
      { score: 2.5, tier: 'gold' },
      { score: 3, tier: 'silver' },
    ]);
    // The live projector starts again on the rebuilt table (it refused the retyped column before).
    await h.startLive({ search: false });
    await h.applied(await h.publish(v2, [{ operation: 'update', key: 'a', version: 2, payload: { accountId: 'a', name: 'A2', score: 7.25, tier: 'gold' } }]));
    expect((await h.sql.query<{ score: number }>(`select score from ${qualifiedTable(v2)} where "accountId" = 'a'`)).rows).toEqual([{ score: 7.25 }]);
  });

  test('--from-time copies the live rows into the configured shape and re-applies only the tail of the log', async () => {
    const entity = uniqueName('tail');
    const v1 = h.put(accountConfig(entity));
    await h.startLive({ search: false });
    await h.applied(
      await h.publish(v1, [
        { operation: 'create', key: 'a', version: 1, payload: { accountId: 'a', name: 'A', tier: 'gold' } },
        { operation: 'create', key: 'b', version: 1, payload: { accountId: 'b', name: 'B', tier: 'bronze' } },
      ]),
    );
    await h.stopLive();
    const v2 = h.put({ ...accountConfig(entity, { tier: { type: 'string' } }), version: 2 });
    await new Promise((r) => setTimeout(r, 20));
    const since = Date.now();
    await h.publish(v2, [{ operation: 'update', key: 'b', version: 2, payload: { accountId: 'b', name: 'B2', tier: 'silver' } }]);

    const plan = await planReplay(h.context(), { tenant: 'acme', entity, target: 'postgres', from: { kind: 'time', timestamp: since } });
    expect(plan.partitions.every((p) => p.start === null)).toBe(true);
    const result = await rebuildProjections(h.context(), { tenant: 'acme', entity, target: 'postgres', from: { kind: 'time', timestamp: since } });
    expect(result.events).toBe(1);
    const rows = (
      await h.sql.query<{ accountId: string; name: string; tier: string; _version: unknown }>(
        `select "accountId", name, tier, "_version" from ${qualifiedTable(v2)} order by "accountId"`,
      )
    ).rows;
    expect(rows.map((r) => [r.accountId, r.name, r.tier, Number(r._version)])).toEqual([
      ['a', 'A', 'gold', 1],
      ['b', 'B2', 'silver', 2],
    ]);
    // The live projector takes over after the tail: nothing is applied twice, the next event lands.
    await h.startLive({ search: false });
    await h.applied(await h.publish(v2, [{ operation: 'update', key: 'a', version: 2, payload: { accountId: 'a', name: 'A2', tier: 'gold' } }]));
    expect((await h.sql.query<{ name: string }>(`select name from ${qualifiedTable(v2)} where "accountId" = 'a'`)).rows).toEqual([{ name: 'A2' }]);
    expect(await verifyProjection(h.context(), { tenant: 'acme', entity })).toMatchObject({ equal: true });
  });

  test('admin jobs: one per entity at a time, progress while running, interrupted by stop() and resumed by the next job', async () => {
    const config = h.put(accountConfig(uniqueName('jobs')));
    await h.startLive({ search: false });
    await h.applied(lastPerPartition(await h.publish(config, historyOf(3000, 2))));
    const jobs = new ReplayJobs(projectionReplay(h.context()), h.context().logger);
    const request = { tenant: 'acme', entity: config.entity, target: 'postgres' as const };
    const first = jobs.start('replay', request);
    expect(first).toMatchObject({ status: 'running', kind: 'replay', tenant: 'acme', entity: config.entity });
    expect(() => jobs.start('verify', request)).toThrow(expect.objectContaining({ code: 'DB_CONFLICT' }));
    // A recovery's rebuild runs as the entity's one job too: refused while a job runs, and refusing jobs meanwhile.
    await expect(jobs.runAlone(request, 'recovery', async () => 'ran')).rejects.toMatchObject({ code: 'DB_CONFLICT' });
    const other = { tenant: 'acme', entity: uniqueName('alone') };
    let release: () => void = () => undefined;
    const alone = jobs.runAlone(other, 'recovery', () => new Promise<string>((resolve) => (release = () => resolve('ran'))));
    expect(() => jobs.start('replay', other)).toThrow(/a recovery of acme\/alone_.* is running/);
    release();
    expect(await alone).toBe('ran');
    const until = async (id: string, done: (v: ReplayJobView) => boolean): Promise<ReplayJobView> => {
      for (;;) {
        const view = jobs.get(id) as ReplayJobView;
        if (done(view)) return view;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await until(first.id, (v) => v.progress.done > 0 || v.status !== 'running');
    await jobs.stop();
    const stopped = jobs.get(first.id) as ReplayJobView;
    if (process.env.TEST_LOG) console.log(JSON.stringify({ stopped: stopped.status, progress: stopped.progress, error: stopped.error }));
    expect(['interrupted', 'succeeded']).toContain(stopped.status); // it may have finished just before stop()
    if (stopped.status === 'interrupted') expect(stopped.error).toEqual({ code: 'DB_CONFLICT', message: 'interrupted; start the replay again to resume it' });
    const second = jobs.start('replay', request);
    const finished = await until(second.id, (v) => v.status !== 'running');
    expect(finished).toMatchObject({ status: 'succeeded', progress: { phase: 'done' } });
    if (stopped.status === 'interrupted') expect(finished.result).toMatchObject({ targets: [{ resumed: true }] });
    const verify = jobs.start('verify', request);
    expect(await until(verify.id, (v) => v.status !== 'running')).toMatchObject({ status: 'succeeded', result: { equal: true } });
    expect(jobs.get('no-such-job')).toBeUndefined();
  });
});
