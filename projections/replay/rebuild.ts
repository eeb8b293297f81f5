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
 *    writes before its checkpoint, so its live table is locked too and its shadow goes to the end of the log),
 *    make the shadows' checkpoints the live projectors' checkpoints, rename the shadows into place.
 *    Afterwards the live projectors go on from there: the table projector skips records below its checkpoint,
 *    and what was written after the swap is applied by the live projectors as usual.
 *
 * When the topic is shared with other entities, the live checkpoints stay as they were (raising them would
 * skip the other entities' events): the live projectors then re-apply the overlap, which the version fence
 * makes harmless (see projections/postgres/README.md).
 */
import type { PartitionOffset, ReplayStart, TopicOffsets } from '../../src/log';
import type { SqlExecutor } from '../../src/store/sql-client';
import { boundToTransaction } from './bound-sql';
import { checkpointsOf, writeCheckpoints, type Positions } from './checkpoints';
import { asOffsets, eventsBetween, lowest, readIntoShadows } from './log-pass';
import { ReplayProgress } from './progress';
import { entityConfigOf, targetsFor, topicIsShared, topicOffsetsOf, type ReplayContext, type ReplayFrom, type ReplayRequest } from './replay-context';
import type { ReplayTarget } from './replay-target';

export interface RunOptions {
  readonly progress?: ReplayProgress;
  /** Stops the replay between batches; the shadows stay, and the next replay resumes them. */
  readonly signal?: AbortSignal;
  /** Catch-up passes go on while more than this many events are left (default 500, at most 5 passes). */
  readonly catchUpThreshold?: number;
}

export interface PartitionPlan {
  readonly partition: number;
  readonly low: string;
  readonly high: string;
  /** Where the replay starts; null for `--from-time` (the log finds the offset when the replay starts). */
  readonly start: string | null;
  /** Events to read (an upper bound when `start` is null). */
  readonly events: number;
}

export interface TargetPlan {
  readonly kind: ReplayTarget['kind'];
  readonly live: string;
  readonly shadow: string;
  readonly liveProjector: string;
  /** The live projector's checkpoints now, per partition. */
  readonly liveCheckpoints: Readonly<Record<string, string>>;
  /** An interrupted replay left this shadow: a replay would resume it. */
  readonly resumable: boolean;
}

export interface ReplayPlan {
  readonly tenant: string;
  readonly entity: string;
  readonly topic: string;
  readonly from: string;
  readonly sharedTopic: boolean;
  readonly partitions: PartitionPlan[];
  readonly events: number;
  readonly targets: TargetPlan[];
  readonly skipped: string[];
}

export interface TargetOutcome {
  readonly kind: ReplayTarget['kind'];
  readonly live: string;
  readonly resumed: boolean;
  /** Per partition: the live projector's checkpoint before and after the handover. */
  readonly handover: { partition: number; before: string; after: string }[];
}

export interface RebuildResult {
  readonly tenant: string;
  readonly entity: string;
  readonly topic: string;
  readonly targets: TargetOutcome[];
  readonly skipped: string[];
  /** Events read from the topic over every pass. */
  readonly events: number;
  readonly passes: number;
  readonly durationMs: number;
  /** How long the swap transaction held the live projectors (and the live search table). */
  readonly swapMs: number;
}

const describeFrom = (from: ReplayFrom): string =>
  from.kind === 'beginning' ? 'beginning' : from.kind === 'offset' ? `offset ${from.offset}` : `time ${new Date(from.timestamp).toISOString()}`;

const asRecord = (positions: Positions): Record<string, string> => Object.fromEntries([...positions].map(([p, o]) => [String(p), o.toString()]));

/** Where each partition starts (null: found by timestamp when reading). */
function startOf(from: ReplayFrom, p: TopicOffsets): bigint | null {
  const low = BigInt(p.low);
  const high = BigInt(p.high);
  if (from.kind === 'beginning') return low;
  if (from.kind === 'time') return null;
  return from.offset < low ? low : from.offset > high ? high : from.offset;
}

/** What a replay would do, without writing anything (`--dry-run`). */
export async function planReplay(ctx: ReplayContext, request: ReplayRequest): Promise<ReplayPlan> {
  const config = await entityConfigOf(ctx, request.tenant, request.entity);
  const from = request.from ?? { kind: 'beginning' };
  const topic = config.persistence.topic;
  const offsets = await topicOffsetsOf(ctx, topic);
  const { targets, skipped } = targetsFor(ctx, config, request.target ?? 'all', 'rebuild');
  const partitions = offsets.map((p): PartitionPlan => {
    const start = startOf(from, p);
    return { partition: p.partition, low: p.low, high: p.high, start: start?.toString() ?? null, events: Number(BigInt(p.high) - (start ?? BigInt(p.low))) };
  });
  const targetPlans: TargetPlan[] = [];
  for (const t of targets) {
    const resumable = (await t.shadowExists()) && (await checkpointsOf(ctx.sql, t.shadowProjector, topic)).size > 0;
    targetPlans.push({ kind: t.kind, live: t.live, shadow: t.shadow, liveProjector: t.liveProjector, liveCheckpoints: asRecord(await checkpointsOf(ctx.sql, t.liveProjector, topic)), resumable });
  }
  return {
    tenant: config.tenant,
    entity: config.entity,
    topic,
    from: describeFrom(from),
    sharedTopic: await topicIsShared(ctx, config),
    partitions,
    events: partitions.reduce((n, p) => n + p.events, 0),
    targets: targetPlans,
    skipped,
  };
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
    const { targets, skipped } = targetsFor(ctx, config, request.target ?? 'all', 'rebuild');
    const offsets = await topicOffsetsOf(ctx, topic);
    const start: Positions = new Map(offsets.map((p) => [p.partition, startOf(from, p) ?? BigInt(p.low)]));

    progress.enter('preparing');
    const states = [];
    for (const t of targets) states.push(await t.prepare(start, from.kind !== 'beginning'));
    const resumed = states.map((s) => s.resumed);
    logger.info({ topic, targets: targets.map((t) => `${t.kind}:${t.live}`), resumed, from: describeFrom(from) }, 'replay started');

    const appliers = targets.map((t) => t.applier(ctx.sql));
    const shadowPositions = async (): Promise<Positions> => lowest(await Promise.all(targets.map((t) => checkpointsOf(ctx.sql, t.shadowProjector, topic))));
    const ends = (o: readonly TopicOffsets[]): Positions => new Map(o.map((p) => [p.partition, BigInt(p.high)]));

    // First pass: from the shadows' checkpoints (for --from-time, from the timestamp: records below a resumed
    // shadow's checkpoint are skipped by its applier).
    let firstFrom = lowest(states.map((s) => s.checkpoints));
    progress.addTotal(eventsBetween(firstFrom, ends(offsets)));
    progress.enter('replaying');
    const replayStart: ReplayStart = from.kind === 'time' ? { kind: 'timestamp', timestamp: from.timestamp } : asOffsets(firstFrom);
    const first = await readIntoShadows({ log: ctx.log, schemas: ctx.schemas, topic, from: replayStart, appliers, assumedStart: firstFrom, progress, parallel: true, ...(run.signal && { signal: run.signal }) });
    await ctx.sql.transaction((tx) => raiseShadowCheckpoints(tx, targets, topic, first.endOffsets));
    let events = first.records;
    let passes = 1;

    // Catch up with what was written meanwhile, until little is left for the swap transaction.
    for (let i = 0; i < 5; i += 1) {
      firstFrom = await shadowPositions();
      const left = eventsBetween(firstFrom, ends(await topicOffsetsOf(ctx, topic)));
      if (left <= (run.catchUpThreshold ?? 500)) break;
      progress.enter('catching-up');
      progress.addTotal(left);
      const pass = await readIntoShadows({ log: ctx.log, schemas: ctx.schemas, topic, from: asOffsets(firstFrom), appliers, progress, parallel: true, ...(run.signal && { signal: run.signal }) });
      await ctx.sql.transaction((tx) => raiseShadowCheckpoints(tx, targets, topic, pass.endOffsets));
      events += pass.records;
      passes += 1;
    }
    run.signal?.throwIfAborted();

    progress.enter('swapping');
    const partitions = (await topicOffsetsOf(ctx, topic)).map((p) => p.partition);
    const swapStarted = Date.now();
    const outcomes = await ctx.sql.transaction(async (tx) => {
      const liveBefore: Positions[] = [];
      for (const t of targets) liveBefore.push(await t.lockLive(tx, partitions));
      const logEnd = ends(await ctx.log.topicOffsets(topic));
      const shadowNow = await Promise.all(targets.map((t) => checkpointsOf(tx, t.shadowProjector, topic)));
      const behind = targets.some((t, i) => {
        const needed = t.kind === 'search' ? logEnd : (liveBefore[i] as Positions);
        return [...needed].some(([p, next]) => (shadowNow[i]?.get(p) ?? 0n) < next);
      });
      if (behind) {
        const bound = boundToTransaction(tx, ctx.sql.kind);
        const result = await readIntoShadows({ log: ctx.log, schemas: ctx.schemas, topic, from: asOffsets(lowest(shadowNow)), appliers: targets.map((t) => t.applier(bound)), progress });
        await raiseShadowCheckpoints(tx, targets, topic, result.endOffsets);
        events += result.records;
        passes += 1;
      }
      const out: TargetOutcome[] = [];
      for (const [i, t] of targets.entries()) {
        const before = liveBefore[i] as Positions;
        const shadow = await checkpointsOf(tx, t.shadowProjector, topic);
        const after: Positions = new Map([...before].map(([p, live]) => [p, shared ? live : maxOf(live, shadow.get(p) ?? 0n)]));
        await writeCheckpoints(tx, t.liveProjector, topic, after);
        await t.swap(tx);
        out.push({ kind: t.kind, live: t.live, resumed: resumed[i] === true, handover: [...before].map(([p, b]) => ({ partition: p, before: b.toString(), after: (after.get(p) ?? b).toString() })) });
      }
      return out;
    });
    const swapMs = Date.now() - swapStarted;
    for (const t of targets) await t.afterSwap();
    progress.enter('done');
    const result: RebuildResult = { tenant: config.tenant, entity: config.entity, topic, targets: outcomes, skipped, events, passes, durationMs: Date.now() - started, swapMs };
    logger.info({ topic, events, passes, durationMs: result.durationMs, swapMs }, 'replay swapped in');
    return result;
  } catch (error) {
    progress.enter(run.signal?.aborted ? 'interrupted' : 'failed');
    throw error;
  }
}

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
