import type { Logger } from '../src/logger';
import type { EntityEvent, RecordSchemas, WriteLog } from '../src/log';
import type { EntityConfigSource } from '../src/tenant';
import { RecordedOffsets } from './recorded-offsets';
import type { RecordStateStore } from '../src/store/record-states/port';
import { persistenceTopicSpec, persistenceTopicsOf } from '../src/log/topology';

/**
 * Brings the pipeline's state store up to date with the persistence topics before deltas are processed: events
 * written but not recorded (a crash between the two) are applied, so stage 3 sees them and a redelivered delta
 * is recognised. The store is derived from the log; an empty store is rebuilt by this same read. Each fetched
 * batch is applied in one transaction with its checkpoint. Answers the offsets restored, from which the
 * pipeline moves the checkpoints on as it records states, so the next start reads only what came after.
 */
export async function restoreRecordState(o: RecordStateSources): Promise<{ applied: number; recorded: RecordedOffsets }> {
  const recorded = new RecordedOffsets();
  const applied = await catchUpRecordState(o, recorded);
  return { applied, recorded };
}

export interface RecordStateSources {
  log: WriteLog;
  schemas: RecordSchemas;
  entities: EntityConfigSource;
  states: RecordStateStore;
  logger: Logger;
}

/**
 * Applies the events the persistence topics hold beyond the state checkpoints, and tracks every partition from its
 * end on. Run at start, and again whenever the pipeline is given deltas partitions: the instance that had them may
 * have died between publishing events and recording their states, and those deltas are about to come again.
 */
export async function catchUpRecordState(o: RecordStateSources, recorded: RecordedOffsets): Promise<number> {
  let applied = 0;
  const topics = persistenceTopicsOf((await o.entities.list()).configs);
  await o.log.createTopics(topics.map(persistenceTopicSpec));
  for (const topic of topics) {
    const partitions = await o.log.topicOffsets(topic);
    const offsets = [];
    let behind = false;
    for (const p of partitions) {
      const from = (await o.states.checkpoint(topic, p.partition)) ?? p.low;
      offsets.push({ partition: p.partition, offset: from });
      if (BigInt(from) < BigInt(p.high)) behind = true;
    }
    if (!behind) {
      for (const p of partitions) recorded.start(topic, p.partition, BigInt(p.high));
      continue;
    }
    const result = await o.log.replay<EntityEvent>({
      topic,
      from: { kind: 'offsets', offsets },
      readerSchema: o.schemas.EntityEvent,
      handleBatch: async (batch) => {
        const last = batch.records[batch.records.length - 1];
        if (!last) return;
        await o.states.applyEvents(
          batch.records.map(({ value: e, offset }) => ({
            id: { tenant: e.tenant, entity: e.entity, key: e.key },
            deltaId: e.deltaId,
            eventId: e.eventId,
            version: e.version,
            doc: e.payload === null ? null : (JSON.parse(e.payload) as Record<string, unknown>),
            offset,
          })),
          { topic: batch.topic, partition: batch.partition, nextOffset: (BigInt(last.offset) + 1n).toString() },
        );
      },
    });
    applied += result.records;
    for (const end of result.endOffsets) recorded.start(topic, end.partition, BigInt(end.offset));
  }
  if (applied > 0) o.logger.info({ events: applied }, 'record state caught up with the persistence topics');
  return applied;
}
