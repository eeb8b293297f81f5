import { createHash, randomUUID } from 'node:crypto';
import type { DeltabrokerError } from '../src/errors';
import type { Logger } from '../src/logger';
import type { DeltaEnvelope, DeltaOutcome, EntityEvent, LogRecord, RecordBatch, RecordSchemas, Rejection, Subscription, WriteLog } from '../src/log';
import type { DeltaContext } from './context';
import { decide, type PipelineDependencies } from './pipeline';
import type { DeltaOutcomeRow, RecordStateStore } from './record-state-store';
import { PIPELINE_GROUPS, PIPELINE_TOPICS, recordMessageKey } from './topics';

export interface DeltaProcessorOptions extends PipelineDependencies {
  log: WriteLog;
  schemas: RecordSchemas;
  states: RecordStateStore;
  logger: Logger;
  /** Partitions of the deltas topic handled at once; order holds within each (the bound on in-flight work). */
  concurrency?: number;
  /** Told of every verdict (metrics, tests). */
  onVerdict?: (outcome: DeltaOutcome) => void;
}

/**
 * Consumes the deltas topic as one consumer group, runs each delta through the pipeline, writes accepted ones
 * to their entity's persistence topic and refusals to the rejections topic, and publishes every verdict on the
 * outcomes topic. A batch's offsets are committed only after all of that was acknowledged; a delta seen again
 * after a crash is answered from its stored outcome instead of being applied twice.
 */
export async function startDeltaProcessor(options: DeltaProcessorOptions): Promise<Subscription> {
  const { log } = options;
  await log.createTopics([
    { topic: PIPELINE_TOPICS.deltas, partitions: 6 },
    { topic: PIPELINE_TOPICS.rejections, partitions: 3 },
    { topic: PIPELINE_TOPICS.outcomes, partitions: 3 },
  ]);
  const subscription = await log.subscribe<DeltaEnvelope>({
    groupId: PIPELINE_GROUPS.pipeline,
    topics: [PIPELINE_TOPICS.deltas],
    partitionsConsumedConcurrently: options.concurrency ?? 3,
    readerSchema: options.schemas.DeltaEnvelope,
    handleBatch: (batch) => processBatch(options, batch),
  });
  await subscription.joined;
  return subscription;
}

async function processBatch(options: DeltaProcessorOptions, batch: RecordBatch<DeltaEnvelope>): Promise<void> {
  for (const record of batch.records) await processRecord(options, record);
}

async function processRecord(options: DeltaProcessorOptions, record: LogRecord<DeltaEnvelope>): Promise<void> {
  const { states, logger } = options;
  const delta = record.value;
  const known = await states.outcome(delta.id, delta.tenant);
  if (known) {
    logger.debug({ deltaId: delta.id }, 'delta seen again: answering its stored outcome');
    await publishOutcome(options, outcomeOf(delta, known));
    return;
  }
  const ctx: DeltaContext = { delta, source: { topic: record.topic, partition: record.partition, offset: record.offset } };
  const verdict = await decide(options, ctx);
  if (verdict.accepted) await persist(options, verdict.ctx);
  else await refuse(options, verdict.ctx, verdict.refusal);
}

async function persist(options: DeltaProcessorOptions, ctx: DeltaContext): Promise<void> {
  const { delta } = ctx;
  const topic = ctx.persistenceTopic as string;
  const version = ctx.nextVersion as number;
  // Events carry the record's whole state after them: stored fields, overwritten by the accepted ones.
  const current = ctx.current?.deleted === false ? ctx.current.doc : null;
  const doc = delta.operation === 'delete' ? null : { ...current, ...ctx.fields };
  const event: EntityEvent = {
    eventId: eventIdOf(delta.id),
    deltaId: delta.id,
    requestId: delta.requestId,
    tenant: delta.tenant,
    entity: delta.entity,
    operation: delta.operation,
    key: delta.key,
    version,
    payload: doc === null ? null : JSON.stringify(doc),
    actor: delta.actor,
    origin: delta.origin,
    occurredAt: delta.occurredAt,
    recordedAt: Date.now(),
  };
  await options.log.createTopics([{ topic, partitions: 3 }]);
  const [position] = await options.log.publish([
    { topic, key: recordMessageKey(delta.tenant, delta.entity, delta.key), value: event, schema: options.schemas.EntityEvent, headers: traceHeaders(delta) },
  ]);
  if (!position) throw new Error('the log acknowledged no position for a persisted event');
  const row = { status: 'accepted' as const, deltaId: delta.id, eventId: event.eventId, version, topic, partition: position.partition, offset: position.offset };
  await options.states.recordAccepted({ tenant: delta.tenant, entity: delta.entity, key: delta.key }, { version, deleted: doc === null, doc }, row);
  options.logger.info(
    { requestId: delta.requestId, deltaId: delta.id, eventId: event.eventId, topic, partition: position.partition, offset: position.offset, version, stripped: ctx.stripped },
    'delta accepted',
  );
  await publishOutcome(options, outcomeOf(delta, row));
}

async function refuse(options: DeltaProcessorOptions, ctx: DeltaContext, refusal: DeltabrokerError): Promise<void> {
  const { delta } = ctx;
  const { stage, ...details } = refusal.details;
  const rejection: Rejection = {
    id: randomUUID(),
    stage: stage ?? 'pipeline',
    reason: refusal.code,
    message: refusal.message,
    deltaId: delta.id,
    requestId: delta.requestId,
    tenant: delta.tenant,
    entity: delta.entity,
    key: delta.key,
    source: ctx.source ? { ...ctx.source, offset: Number(ctx.source.offset), key: recordMessageKey(delta.tenant, delta.entity, delta.key) } : null,
    raw: null,
    rejectedAt: Date.now(),
  };
  await options.log.publish([
    { topic: PIPELINE_TOPICS.rejections, key: recordMessageKey(delta.tenant, delta.entity, delta.key), value: rejection, schema: options.schemas.Rejection, headers: traceHeaders(delta) },
  ]);
  const problem = { code: refusal.code, stage: stage ?? 'pipeline', message: refusal.message, details };
  await options.states.recordRefused(delta.id, delta.tenant, problem);
  options.logger.info({ requestId: delta.requestId, deltaId: delta.id, code: refusal.code, stage, field: details.field }, 'delta refused');
  await publishOutcome(options, outcomeOf(delta, { status: 'refused', deltaId: delta.id, problem }));
}

async function publishOutcome(options: DeltaProcessorOptions, outcome: DeltaOutcome): Promise<void> {
  await options.log.publish([{ topic: PIPELINE_TOPICS.outcomes, key: outcome.deltaId, value: outcome, schema: options.schemas.DeltaOutcome }]);
  options.onVerdict?.(outcome);
}

function outcomeOf(delta: DeltaEnvelope, row: DeltaOutcomeRow): DeltaOutcome {
  const base = { deltaId: delta.id, tenant: delta.tenant, entity: delta.entity, key: delta.key, decidedAt: Date.now() };
  if (row.status === 'accepted') {
    return { ...base, status: 'accepted', version: row.version, eventId: row.eventId, topic: row.topic, partition: row.partition, offset: row.offset, code: null, stage: null, message: null, details: null };
  }
  const problem = row.problem as { code?: string; stage?: string; message?: string; details?: unknown };
  return {
    ...base,
    status: 'refused',
    version: null,
    eventId: null,
    topic: null,
    partition: null,
    offset: null,
    code: problem.code ?? 'DB_INTERNAL',
    stage: problem.stage ?? null,
    message: problem.message ?? null,
    details: JSON.stringify(problem.details ?? {}),
  };
}

/** An event's id follows from its delta's id, so a delta persisted twice after a crash carries one event id. */
export function eventIdOf(deltaId: string): string {
  const h = createHash('sha256').update(`deltabroker-event|${deltaId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

const traceHeaders = (delta: DeltaEnvelope): Record<string, string> => ({
  'delta-id': delta.id,
  ...(delta.requestId !== null && { 'request-id': delta.requestId }),
});
