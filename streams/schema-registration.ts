import type { RecordSchema, RecordSchemas, WriteLog } from '../src/log';
import { actionTopics, type EntityConfigSource } from '../src/tenant';
import { PIPELINE_TOPICS, persistenceTopicsOf } from '../src/log/topology';

export interface SchemaRegistrationOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  entities: EntityConfigSource;
  datacenter: string;
}

/**
 * Registers the value schema of every topic the service reads or writes, at start: `deltas`, `rejections`,
 * the outcomes topic, and each configured entity's persistence and action topics. Producers configured the
 * production way (auto.register.schemas=false, use.latest.version=true) then find them before the first write.
 * Answers the topics registered.
 */
export async function registerRecordSchemas(o: SchemaRegistrationOptions): Promise<string[]> {
  const { configs } = await o.entities.list();
  const entries: [string, RecordSchema][] = [
    [PIPELINE_TOPICS.deltas, o.schemas.DeltaEnvelope],
    [PIPELINE_TOPICS.rejections, o.schemas.Rejection],
    [PIPELINE_TOPICS.outcomes, o.schemas.DeltaOutcome],
    ...persistenceTopicsOf(configs).map((topic): [string, RecordSchema] => [topic, o.schemas.EntityEvent]),
    ...[...new Set(configs.flatMap((c) => actionTopics(c, o.datacenter)))].map((topic): [string, RecordSchema] => [topic, o.schemas.ActionEvent]),
  ];
  await Promise.all(entries.map(([topic, schema]) => o.log.registerValueSchema(topic, schema)));
  return entries.map(([topic]) => topic);
}
