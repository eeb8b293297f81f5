/**
 * Recovery of a persistence topic that was deleted and created again (DB_TOPIC_RECREATED), in the running
 * service. The projectors' checkpoints and the consumer groups' offsets counted the old topic's records, and the
 * table and search index hold what the old topic held; the log is the source of truth, so the recovered state is
 * what the new topic holds:
 *
 * 1. refuse what recovery cannot make right (see `TopicRecovery.recover`);
 * 2. rebuild the entity's table and search index from the new topic with the replay machinery, handing the
 *    shadows' checkpoints over in place of the old ones (`handover: 'replace'`), inside the swap transaction
 *    that holds the live projectors' checkpoints;
 * 3. move the pipeline's state checkpoints that lie beyond the new topic's end back to its start (the record
 *    state catches up from them at the next start; the records themselves stay, as the pipeline decided them);
 * 4. consume every stopped partition again through its consumer (StoppedTopics.resume): the projectors from
 *    their new checkpoints (records below them are in the rebuilt projections), the action emitters from the new
 *    topic's start (nothing of it was emitted while they were stopped). Each resume commits its consumer group's
 *    offset first, as the group's own member, so nothing needs a group without members.
 */
import { DeltabrokerError } from '../../src/errors';
import type { RecoveredPartition, RecoverRequest, RecoveryReport, TopicRecovery } from '../../src/replay';
import { rebuildProjections, type ReplayContext } from '../replay';
import { entityConfigOf, targetsFor } from '../replay/replay-context';
import type { RecordStateStore } from '../../src/store/record-states/port';
import type { StoppedTopics } from '../stopped-topics';

export interface TopicRecoveryOptions {
  /** The service's ports, as the replay uses them. */
  readonly replay: ReplayContext;
  /** The partitions this service's projectors and emitters stopped, and how each consumes one again. */
  readonly stopped: StoppedTopics;
  /** The pipeline's record state, whose catch-up checkpoints count the persistence topics' offsets. */
  readonly states: RecordStateStore;
}

export function topicRecovery(o: TopicRecoveryOptions): TopicRecovery {
  return {
    async recover(request: RecoverRequest): Promise<RecoveryReport> {
      const started = Date.now();
      const config = await entityConfigOf(o.replay, request.tenant, request.entity);
      const topic = config.persistence.topic;
      const stopped = o.stopped.list().filter((p) => p.topic === topic);
      if (stopped.length === 0) {
        throw refusal(
          'recreated',
          `nothing of ${topic} is stopped in this service: the topic was not found deleted and created again (/ready names every partition stopped with DB_TOPIC_RECREATED); to rebuild the projections of a topic that kept its records, use replay`,
        );
      }
      const id = `${config.tenant}/${config.entity}`;
      for (const target of targetsFor(o.replay, config, 'all', 'rebuild')) {
        if (await target.shadowExists()) {
          throw refusal(
            'no-replay',
            `the replay shadow ${target.shadow} exists: a replay of ${id} is running, or one was interrupted and holds records of the old topic; wait for the replay to end (or drop the shadow), then run recover again`,
          );
        }
      }
      const logger = o.replay.logger.child({ component: 'recovery', tenant: config.tenant, entity: config.entity, topic });
      logger.info({ stopped: stopped.map(({ consumer, partition }) => ({ consumer, partition })) }, 'recovering a recreated topic');
      const rebuild = await rebuildProjections(
        { ...o.replay, logger },
        { tenant: config.tenant, entity: config.entity, target: 'all', from: { kind: 'beginning' } },
        { handover: 'replace' },
      );
      const stateCheckpoints = await lowerStateCheckpoints(o, topic);
      const failed: string[] = [];
      for (const partition of stopped) {
        await o.stopped.resume(partition).catch((e: unknown) => failed.push((e as Error).message));
      }
      if (failed.length > 0) {
        throw refusal('resumed', `the projections of ${topic} were rebuilt, but these partitions stay stopped: ${failed.join('; ')}; run recover again`);
      }
      const resumed = stopped.map(({ consumer, partition, position, highWatermark }): RecoveredPartition => ({
        consumer,
        partition,
        position,
        highWatermark,
      }));
      logger.info({ resumed: resumed.length, events: rebuild.events }, 'recreated topic recovered; its partitions are consumed again');
      return { tenant: config.tenant, entity: config.entity, topic, rebuild, stateCheckpoints, resumed, durationMs: Date.now() - started };
    },
  };
}

/** Moves the state checkpoints of the topic's partitions that lie beyond their end back to their start. */
async function lowerStateCheckpoints(o: TopicRecoveryOptions, topic: string): Promise<RecoveryReport['stateCheckpoints']> {
  const moved = [];
  for (const { partition, low, high } of await o.replay.log.topicOffsets(topic)) {
    const before = await o.states.checkpoint(topic, partition);
    if (before !== undefined && BigInt(before) > BigInt(high)) moved.push({ partition, before, after: low });
  }
  await o.states.lowerCheckpoints(moved.map(({ partition, after }) => ({ topic, partition, nextOffset: after })));
  return moved;
}

const refusal = (rule: string, message: string): DeltabrokerError => new DeltabrokerError('DB_CONFLICT', message, { field: 'entity', rule, stage: 'recover' });
