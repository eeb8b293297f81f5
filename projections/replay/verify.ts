/**
 * Verify: replays an entity's persistence topic from the beginning into a temporary shadow table and
 * compares it with the live table, at the same log positions. The shadow is first filled up to where the
 * live projector was when verify started; then, with the live checkpoints locked (no live batch commits
 * meanwhile), it is caught up to where the live projector is now, and the two are compared inside that
 * transaction. The shadow is dropped afterwards.
 */
import { boundToTransaction } from './bound-sql';
import { checkpointsOf, lockCheckpoints, type Positions } from './checkpoints';
import { asOffsets, eventsBetween, readIntoShadows } from './log-pass';
import { ReplayProgress, type VerifyReport, type VerifyRequest, type VerifyRunOptions } from '../../src/replay';
import { entityConfigOf, topicOffsetsOf, type ReplayContext } from './replay-context';
import { compareTables } from './table-compare';
import { tableTarget } from './table-target';

export async function verifyProjection(ctx: ReplayContext, request: VerifyRequest, o: VerifyRunOptions = {}): Promise<VerifyReport> {
  const started = Date.now();
  const progress = o.progress ?? new ReplayProgress();
  const config = await entityConfigOf(ctx, request.tenant, request.entity);
  const topic = config.persistence.topic;
  const target = tableTarget({
    sql: ctx.sql,
    config,
    logger: ctx.logger,
    purpose: 'verify',
    ...(ctx.liveProjectors?.postgres && { liveProjector: ctx.liveProjectors.postgres }),
  });
  try {
    const offsets = await topicOffsetsOf(ctx, topic);
    const low: Positions = new Map(offsets.map((p) => [p.partition, BigInt(p.low)]));
    const liveAtStart = await checkpointsOf(ctx.sql, target.liveProjector, topic);
    const limits: Positions = new Map(offsets.map((p) => [p.partition, liveAtStart.get(p.partition) ?? 0n]));

    progress.enter('preparing');
    await target.discard();
    await target.prepare(low, false);
    progress.addTotal(eventsBetween(low, limits));
    progress.enter('replaying');
    let events = (
      await readIntoShadows({
        log: ctx.log,
        schemas: ctx.schemas,
        topic,
        from: asOffsets(low),
        writers: [target.writer(ctx.sql)],
        limits,
        progress,
        parallel: true,
        ...(o.signal && { signal: o.signal }),
      })
    ).records;

    progress.enter('catching-up');
    const comparison = await ctx.sql.transaction(async (tx) => {
      const live = await lockCheckpoints(
        tx,
        target.liveProjector,
        topic,
        offsets.map((p) => p.partition),
      );
      const shadow = await checkpointsOf(tx, target.shadowProjector, topic);
      if ([...live].some(([p, next]) => (shadow.get(p) ?? 0n) < next)) {
        const from: Positions = new Map([...live].map(([p]) => [p, shadow.get(p) ?? 0n]));
        progress.addTotal(eventsBetween(from, live));
        const bound = boundToTransaction(tx);
        events += (
          await readIntoShadows({ log: ctx.log, schemas: ctx.schemas, topic, from: asOffsets(from), writers: [target.writer(bound)], limits: live, progress })
        ).records;
      }
      return { live, result: await compareTables(tx, target.liveTable, target.shadowTable, o.maxDifferences ?? 20) };
    });
    progress.enter('done');
    return {
      tenant: config.tenant,
      entity: config.entity,
      topic,
      table: target.liveTable.qualifiedName,
      positions: Object.fromEntries([...comparison.live].map(([p, next]) => [String(p), next.toString()])),
      events,
      durationMs: Date.now() - started,
      ...comparison.result,
    };
  } catch (error) {
    progress.enter(o.signal?.aborted ? 'interrupted' : 'failed');
    throw error;
  } finally {
    await target.discard().catch((error: unknown) => ctx.logger.warn({ err: error, shadow: target.shadow }, 'verify shadow not dropped'));
  }
}
