import type { EntityEvent, RecordSchemas, WriteLog } from '../log';
import { unknownEntity, type EntityConfigSource } from '../tenant';

/** One event of a record, as its persistence topic holds it, without the payload. */
export interface RecordHistoryEntry {
  readonly version: number;
  readonly operation: string;
  readonly eventId: string;
  readonly deltaId: string;
  readonly requestId: string | null;
  readonly actor: EntityEvent['actor'];
  readonly origin: EntityEvent['origin'];
  readonly occurredAt: string;
  readonly recordedAt: string;
  readonly position: { readonly partition: number; readonly offset: string };
}

export interface RecordHistoryDeps {
  readonly log: Pick<WriteLog, 'replay'>;
  readonly schemas: Pick<RecordSchemas, 'EntityEvent'>;
  readonly entities: Pick<EntityConfigSource, 'get'>;
}

/**
 * A record's history for operators: its events read back from the entity's persistence topic (the log, not the
 * projection), oldest first. The whole topic is read, so this is for looking at one record, not for a hot path;
 * payloads are left out, so no field a role may not read is shown.
 */
export class RecordHistoryService {
  constructor(private readonly deps: RecordHistoryDeps) {}

  async history(tenant: string, entity: string, key: string): Promise<RecordHistoryEntry[]> {
    const config = await this.deps.entities.get(tenant, entity);
    if (!config) throw unknownEntity(tenant, entity, 'history');
    const entries: RecordHistoryEntry[] = [];
    await this.deps.log.replay<EntityEvent>({
      topic: config.persistence.topic,
      readerSchema: this.deps.schemas.EntityEvent,
      handleBatch: async (batch) => {
        for (const { value, offset } of batch.records) {
          if (value.tenant !== tenant || value.entity !== entity || value.key !== key) continue;
          entries.push({
            version: value.version,
            operation: value.operation,
            eventId: value.eventId,
            deltaId: value.deltaId,
            requestId: value.requestId,
            actor: value.actor,
            origin: value.origin,
            occurredAt: new Date(value.occurredAt).toISOString(),
            recordedAt: new Date(value.recordedAt).toISOString(),
            position: { partition: batch.partition, offset },
          });
        }
      },
    });
    return entries.sort((a, b) => a.version - b.version);
  }
}
