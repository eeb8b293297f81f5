import type { Logger } from '../src/logger';
import {
  BatchRounds,
  LINGER_BELOW_EVENTS,
  type ActionEvent,
  type EntityEvent,
  type LogPosition,
  type OutgoingRecord,
  type RecordBatch,
  type RecordSchemas,
  type Subscription,
  type WriteLog,
} from '../src/log';
import type { EntityConfig, EntityConfigSource } from '../src/tenant';
import { StoppedTopics } from './stopped-topics';
import { PIPELINE_GROUPS, persistenceTopicSpec, persistenceTopicsOf, recordMessageKey } from '../src/log/topology';
import { batchEntityConfigs } from './batch-entity-configs';

export interface ActionEmitterOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  entities: EntityConfigSource;
  datacenter: string;
  logger: Logger;
  /** Where partitions whose position the log lost are reported (Kafka's auto.offset.reset=none). */
  stopped?: StoppedTopics;
  /**
   * `exactly-once`: each round's actions and the positions they were read at are committed in one transaction, under
   * the transactional id `<group>.<instanceId>` (stable across restarts, so a restart fences what a killed process left
   * open). `at-least-once`: actions are published plainly and the positions committed after them.
   */
  delivery: { readonly guarantee: 'exactly-once'; readonly instanceId: string } | { readonly guarantee: 'at-least-once' };
  /**
   * How long a round of fewer than LINGER_BELOW_EVENTS.actionEmitters events waits for more after a round as small (BatchRounds'
   * linger; the service passes `actions.lingerMs`). Absent or 0: it starts at once.
   */
  lingerMs?: number;
}

/** The action topic an event goes to, if any, for one emitter. */
type ActionTarget = (config: EntityConfig, event: EntityEvent) => string | undefined;

/**
 * The notification stage (seed section 6): after an event is persisted, publish it to its entity's action
 * topics. Two consumer groups read the persistence topics:
 * - the global emitter (one group per Kafka cluster) publishes every event to `<…>.actions.global`;
 * - the local emitter of datacenter D (one group per datacenter) publishes the events that originated in D to
 *   `<…>.actions.D`.
 * Entities without notification methods are skipped. Delivery is exactly once for `read_committed` subscribers
 * under the `exactly-once` guarantee (see `delivery`), else at least once; each action carries its event id for
 * de-duplication either way. A partition whose committed offset the log no longer holds (the persistence topic
 * was deleted and created again, or lost its files) is stopped with DB_TOPIC_RECREATED, not reset.
 */
export async function startActionEmitters(o: ActionEmitterOptions): Promise<Subscription[]> {
  const configs = (await o.entities.list()).configs.filter((c) => c.notifications.methods.length > 0);
  const topics = persistenceTopicsOf(configs);
  if (topics.length === 0) return [];
  await o.log.createTopics([
    ...topics.map(persistenceTopicSpec),
    ...configs.flatMap((c) => actionTopicsOf(c, o.datacenter).map((topic) => ({ topic, partitions: 3 }))),
  ]);
  const stopped = o.stopped ?? new StoppedTopics();
  const actionsOf = async (batches: readonly RecordBatch<EntityEvent>[], target: ActionTarget): Promise<OutgoingRecord[]> => {
    const events = batches.flatMap((batch) => batch.records.map((r) => r.value));
    const configOf = await batchEntityConfigs(o.entities, events);
    const actions: OutgoingRecord[] = [];
    for (const event of events) {
      const config = configOf(event.tenant, event.entity);
      const topic = config && target(config, event);
      if (topic)
        actions.push({
          topic,
          key: recordMessageKey(event.tenant, event.entity, event.key),
          value: actionOf(event),
          schema: o.schemas.ActionEvent,
          headers: { 'event-id': event.eventId },
        });
    }
    return actions;
  };
  const emitter = async (groupId: string, target: ActionTarget): Promise<Subscription> => {
    const transactions = o.delivery.guarantee === 'exactly-once' ? await o.log.openTransactionalPublisher(`${groupId}.${o.delivery.instanceId}`) : undefined;
    // The batches of the partitions that became readable together are published together: one publish (an
    // append and an fsync per action partition), or one transaction, per round instead of one per batch.
    const rounds = new BatchRounds<RecordBatch<EntityEvent>, void>(
      async (batches) => {
        const actions = await actionsOf(batches, target);
        // A round with nothing to publish has nothing to publish twice: its positions are committed after it as usual.
        if (transactions && actions.length > 0) await transactions.publishAndCommit(actions, { groupId, positions: batches.map(nextPosition) });
        else if (actions.length > 0) await o.log.publish(actions);
        return batches.map(() => undefined);
      },
      ROUND_RECORDS,
      (batch) => batch.records.length,
      { ms: o.lingerMs ?? 0, size: LINGER_BELOW_EVENTS.actionEmitters },
    );
    const subscription = await o.log.subscribe<EntityEvent>({
      groupId,
      topics,
      readerSchema: o.schemas.EntityEvent,
      partitionsConsumedConcurrently: 3,
      onLostPosition: (lost) => void stopped.stop(groupId, lost),
      handleBatch: (batch) => rounds.handle(batch),
    });
    return {
      groupId,
      joined: subscription.joined,
      resumeAt: (topic, partition, offset) => subscription.resumeAt(topic, partition, offset),
      stop: async () => {
        await subscription.stop();
        await transactions?.close();
      },
    };
  };
  const subscriptions = await Promise.all([
    emitter(PIPELINE_GROUPS.globalEmitter, (c) => (c.notifications.methods.includes('global') ? c.notifications.globalTopic : undefined)),
    emitter(PIPELINE_GROUPS.localEmitter(o.datacenter), (c, e) =>
      c.notifications.methods.includes('local') && e.origin.datacenter === o.datacenter ? localTopic(c, o.datacenter) : undefined,
    ),
  ]);
  await Promise.all(subscriptions.map((s) => s.joined));
  // A stopped partition held the old topic's events, none of them emitted from the new one: a resumed partition
  // emits the new topic from its start (each action carries its event id).
  for (const subscription of subscriptions) {
    stopped.onResume(subscription.groupId, async (topic, partition) => {
      const low = (await o.log.topicOffsets(topic)).find((p) => p.partition === partition)?.low ?? '0';
      await subscription.resumeAt(topic, partition, low);
    });
  }
  o.logger.info({ topics, datacenter: o.datacenter }, 'action emitters running');
  return subscriptions;
}

/** Where the group reads next once the batch is done: after its last record. */
const nextPosition = (batch: RecordBatch<EntityEvent>): LogPosition => ({
  topic: batch.topic,
  partition: batch.partition,
  offset: (BigInt(batch.records[batch.records.length - 1]!.offset) + 1n).toString(),
});

/** Records published in one round at most (a persistence partition's batch is never split). */
const ROUND_RECORDS = 5000;

const localTopic = (config: EntityConfig, datacenter: string): string => `${config.notifications.localTopicPrefix}.${datacenter}`;

const actionTopicsOf = (config: EntityConfig, datacenter: string): string[] => [
  ...(config.notifications.methods.includes('global') ? [config.notifications.globalTopic] : []),
  ...(config.notifications.methods.includes('local') ? [localTopic(config, datacenter)] : []),
];

function actionOf(event: EntityEvent): ActionEvent {
  return {
    eventId: event.eventId,
    deltaId: event.deltaId,
    tenant: event.tenant,
    entity: event.entity,
    operation: event.operation,
    key: event.key,
    version: event.version,
    payload: event.payload,
    user: event.actor.user,
    datacenter: event.origin.datacenter,
    occurredAt: event.occurredAt,
    emittedAt: Date.now(),
  };
}
