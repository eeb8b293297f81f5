/**
 * Rebuild: replays an entity's persistence topic into shadows of its projections while the live ones keep
 * serving, then swaps them in and hands the live projectors over, losing and doubling nothing.
 *
 * 1. prepare: each target finds the shadow an interrupted replay left (its checkpoints say where to go on)
 *    or creates a fresh one with checkpoints at the start point;
 * 2. read the topic up to its end offsets (taken when the read starts), then catch up with what was written
 *    meanwhile, until the shadows are close to the end of the log;
 * 3. swap, in one transaction: lock the live projectors' checkpoints (no live batch commits until the end of
 *    the transaction), catch the shadows up past anything the live projectors applied (the search projector
 *    writes its index while holding its checkpoint; its shadow goes to the end of the log),
 *    make the shadows' checkpoints the live projectors' checkpoints, rename the shadows into place.
 *    Afterwards the live projectors go on from there: the table projector skips records below its checkpoint,
 *    and what was written after the swap is applied by the live projectors as usual.
 *
 * When the topic is shared with other entities, the live checkpoints stay as they were (raising them would
 * skip the other entities' events): the live projectors then re-apply the overlap, which the version fence
 * makes harmless (see projections/postgres/README.md).
 *
 * A recovery of a recreated topic (projections/recovery) asks for `handover: 'replace'`: the live checkpoints then
 * counted the old topic's records, so they take the shadows' values even where those are lower, and every shadow is
 * first caught up to the end of the log.
 */
import { DeltabrokerError } from '../../src/errors';
import type { PartitionOffset, ReplayStart, TopicOffsets } from '../../src/log';
import type { SqlExecutor } from '../../src/store/sql-client';
import { boundToTransaction } from './bound-sql';
import { checkpointsOf, writeCheckpoints, type Positions } from './checkpoints';
import { asOffsets, eventsBetween, lowest, readIntoShadows } from './log-pass';
import { describeFrom, startOf } from './plan';
import { ReplayProgress, type RebuildResult, type ReplayFrom, type ReplayRequest, type ReplayRunOptions, type TargetOutcome } from '../../src/replay';
import { entityConfigOf, targetsFor, topicIsShared, topicOffsetsOf, type ReplayContext } from './replay-context';
import type { ReplayTarget, ShadowState, ShadowWriter } from './replay-target';

export interface RunOptions extends ReplayRunOptions {
  /** Catch-up passes go on while more than this many events are left (default 500, at most 5 passes). */
  readonly catchUpThreshold?: number;
  /**
   * `raise` (default): each live checkpoint becomes the higher of itself and its shadow's. `replace`: the shadow's,
   * for live checkpoints that count another topic's records (a recreated topic); refused for a shared topic.
   */
  readonly handover?: 'raise' | 'replace';
}

export async function rebuildProjections(ctx: ReplayContext, request: ReplayRequest, run: RunOptions = {}): Promise<RebuildResult> {
  const started = Date.now();
  const progress = run.progress ?? new ReplayProgress();
  const logger = ctx.logger.child({ component: 'replay', tenant: request.tenant, entity: request.entity });
  try {
    const config = await entityConfigOf(ctx, request.tenant, request.entity);
    const from = request.from ?? { kind: 'beginning' };
    const topic = config.persistence.topic;
    const shared = await topicIsShared(ctx, config);
    if (shared && run.handover === 'replace') {
      throw new DeltabrokerError(
        'DB_CONFLICT',
        `${topic} also carries other entities' events: their projections counted the old topic too, and one entity's rebuild cannot hand their checkpoints over`,
        { field: 'entity', rule: 'own-topic', stage: 'recover' },
      );
    }
    const targets = targetsFor(ctx, config, request.target ?? 'all', 'rebuild');
    const offsets = await topicOffsetsOf(ctx, topic);
    const start: Positions = new Map(offsets.map((p) => [p.partition, startOf(from, p) ?? BigInt(p.low)]));

    progress.enter('preparing');
    const states: ShadowState[] = [];
    for (const t of targets) states.push(await t.prepare(start, from.kind !== 'beginning'));
    logger.info(
      { topic, targets: targets.map((t) => `${t.kind}:${t.live}`), resumed: states.map((s) => s.resumed), from: describeFrom(from) },
      'replay started',
    );

    const pass: Pass = { ctx, topic, targets, progress, events: 0, passes: 0, ...(run.signal && { signal: run.signal }) };
    await fillShadows(pass, from, states, offsets, run.catchUpThreshold ?? 500);
    run.signal?.throwIfAborted();

    progress.enter('swapping');
    const swapStarted = Date.now();
    const handovers = await swapIn(pass, shared, run.handover ?? 'raise');
    const swapMs = Date.now() - swapStarted;
    for (const t of targets) await t.afterSwap();
    progress.enter('done');
    const outcomes = targets.map((t, i): TargetOutcome => ({ kind: t.kind, live: t.live, resumed: states[i]?.resumed === true, handover: handovers[i] ?? [] }));
    const result: RebuildResult = {
      tenant: config.tenant,
      entity: config.entity,
      topic,
      targets: outcomes,
      events: pass.events,
      passes: pass.passes,
      durationMs: Date.now() - started,
      swapMs,
    };
    logger.info({ topic, events: result.events, passes: result.passes, durationMs: result.durationMs, swapMs }, 'replay swapped in');
    return result;
  } catch (error) {
    progress.enter(run.signal?.aborted ? 'interrupted' : 'failed');
    throw error;
  }
}

/** One rebuild's reads of the topic, and what they have read so far. */
interface Pass {
  readonly ctx: ReplayContext;
  readonly topic: string;
  readonly targets: readonly ReplayTarget[];
  readonly progress: ReplayProgress;
  readonly signal?: AbortSignal;
  events: number;
  passes: number;
}

/** Reads from `from` into every shadow through `writers` (in `tx` when given), then raises their checkpoints. */
async function readPass(
  pass: Pass,
  from: ReplayStart,
  writers: readonly ShadowWriter[],
  o: { tx?: SqlExecutor; assumedStart?: Positions } = {},
): Promise<void> {
  const { ctx, topic, progress } = pass;
  const result = await readIntoShadows({
    log: ctx.log,
    schemas: ctx.schemas,
    topic,
    from,
    writers,
    progress,
    // Inside the swap transaction batches go one at a time: they share its one connection.
    parallel: o.tx === undefined,
    ...(o.assumedStart && { assumedStart: o.assumedStart }),
    ...(o.tx === undefined && pass.signal && { signal: pass.signal }),
  });
  if (o.tx) await raiseShadowCheckpoints(o.tx, pass.targets, topic, result.endOffsets);
  else await ctx.sql.transaction((tx) => raiseShadowCheckpoints(tx, pass.targets, topic, result.endOffsets));
  pass.events += result.records;
  pass.passes += 1;
}

/**
 * The first read, from the shadows' checkpoints (for --from-time, from the timestamp: records below a resumed
 * shadow's checkpoint are skipped by its writer), then catch-up passes over what was written meanwhile,
 * until at most `threshold` events are left for the swap transaction (at most 5 passes).
 */
async function fillShadows(pass: Pass, from: ReplayFrom, states: readonly ShadowState[], offsets: readonly TopicOffsets[], threshold: number): Promise<void> {
  const { ctx, topic, targets, progress } = pass;
  const writers = targets.map((t) => t.writer(ctx.sql));
  const firstFrom = lowest(states.map((s) => s.checkpoints));
  progress.addTotal(eventsBetween(firstFrom, endsOf(offsets)));
  progress.enter('replaying');
  await readPass(pass, from.kind === 'time' ? { kind: 'timestamp', timestamp: from.timestamp } : asOffsets(firstFrom), writers, { assumedStart: firstFrom });
  for (let i = 0; i < 5; i += 1) {
    const shadows = lowest(await Promise.all(targets.map((t) => checkpointsOf(ctx.sql, t.shadowProjector, topic))));
    const left = eventsBetween(shadows, endsOf(await topicOffsetsOf(ctx, topic)));
    if (left <= threshold) return;
    progress.enter('catching-up');
    progress.addTotal(left);
    await readPass(pass, asOffsets(shadows), writers);
  }
}

/**
 * The swap transaction: locks the live projectors out, catches the shadows up past anything they applied,
 * hands the shadows' checkpoints over, renames the shadows into place. Answers each target's handover.
 */
async function swapIn(pass: Pass, shared: boolean, handover: 'raise' | 'replace'): Promise<TargetOutcome['handover'][]> {
  const { ctx, topic, targets } = pass;
  const partitions = (await topicOffsetsOf(ctx, topic)).map((p) => p.partition);
  return ctx.sql.transaction(async (tx) => {
    const liveBefore: Positions[] = [];
    for (const t of targets) liveBefore.push(await t.lockLive(tx, partitions));
    const logEnd = endsOf(await ctx.log.topicOffsets(topic));
    const shadowNow = await Promise.all(targets.map((t) => checkpointsOf(tx, t.shadowProjector, topic)));
    const behind = targets.some((t, i) => {
      const needed = t.liveWritesBeforeCheckpoint || handover === 'replace' ? logEnd : (liveBefore[i] as Positions);
      return [...needed].some(([p, next]) => (shadowNow[i]?.get(p) ?? 0n) < next);
    });
    if (behind) {
      const bound = boundToTransaction(tx);
      await readPass(
        pass,
        asOffsets(lowest(shadowNow)),
        targets.map((t) => t.writer(bound)),
        { tx },
      );
    }
    const handovers: TargetOutcome['handover'][] = [];
    for (const [i, t] of targets.entries()) {
      const before = liveBefore[i] as Positions;
      const shadow = await checkpointsOf(tx, t.shadowProjector, topic);
      const handedOver = (live: bigint, p: number): bigint => (handover === 'replace' ? (shadow.get(p) ?? 0n) : maxOf(live, shadow.get(p) ?? 0n));
      const after: Positions = new Map([...before].map(([p, live]) => [p, shared ? live : handedOver(live, p)]));
      await writeCheckpoints(tx, t.liveProjector, topic, after);
      await t.swap(tx);
      handovers.push([...before].map(([p, b]) => ({ partition: p, before: b.toString(), after: (after.get(p) ?? b).toString() })));
    }
    return handovers;
  });
}

const endsOf = (offsets: readonly TopicOffsets[]): Positions => new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * After a pass that read every partition to `endOffsets`, each shadow has everything below them: records it
 * did not apply were below its start (a `--from-time` start), undecodable, or of another entity.
 */
async function raiseShadowCheckpoints(tx: SqlExecutor, targets: readonly ReplayTarget[], topic: string, endOffsets: readonly PartitionOffset[]): Promise<void> {
  for (const t of targets) {
    const current = await checkpointsOf(tx, t.shadowProjector, topic);
    const raised: Positions = new Map();
    for (const { partition, offset } of endOffsets) {
      const end = BigInt(offset);
      if ((current.get(partition) ?? 0n) < end) raised.set(partition, end);
    }
    if (raised.size > 0) await writeCheckpoints(tx, t.shadowProjector, topic, raised);
  }
}
