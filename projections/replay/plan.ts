/** What a replay would do, read without writing anything (`--dry-run`), and where each partition starts. */
import type { TopicOffsets } from '../../src/log';
import { checkpointsOf, type Positions } from './checkpoints';
import { entityConfigOf, targetsFor, topicIsShared, topicOffsetsOf, type ReplayContext } from './replay-context';
import type { PartitionPlan, ReplayFrom, ReplayPlan, ReplayRequest, TargetPlan } from '../../src/replay';

export const describeFrom = (from: ReplayFrom): string =>
  from.kind === 'beginning' ? 'beginning' : from.kind === 'offset' ? `offset ${from.offset}` : `time ${new Date(from.timestamp).toISOString()}`;

const asRecord = (positions: Positions): Record<string, string> => Object.fromEntries([...positions].map(([p, o]) => [String(p), o.toString()]));

/** Where each partition starts (null: found by timestamp when reading). */
export function startOf(from: ReplayFrom, p: TopicOffsets): bigint | null {
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
  const targets = targetsFor(ctx, config, request.target ?? 'all', 'rebuild');
  const partitions = offsets.map((p): PartitionPlan => {
    const start = startOf(from, p);
    return { partition: p.partition, low: p.low, high: p.high, start: start?.toString() ?? null, events: Number(BigInt(p.high) - (start ?? BigInt(p.low))) };
  });
  const targetPlans: TargetPlan[] = [];
  for (const t of targets) {
    const resumable = (await t.shadowExists()) && (await checkpointsOf(ctx.sql, t.shadowProjector, topic)).size > 0;
    targetPlans.push({
      kind: t.kind,
      live: t.live,
      shadow: t.shadow,
      liveProjector: t.liveProjector,
      liveCheckpoints: asRecord(await checkpointsOf(ctx.sql, t.liveProjector, topic)),
      resumable,
    });
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
  };
}
