import { DeltabrokerError } from '../src/errors';
import type { Logger } from '../src/logger';
import {
  BatchRounds,
  type BatchHandled,
  type DeltaEnvelope,
  type DeltaOutcome,
  type LogRecord,
  type RecordSchemas,
  type Subscription,
  type WriteLog,
} from '../src/log';
import type { EntityConfigSource } from '../src/tenant';
import { newDeltaContext } from './context';
import type { RecordedOffsets } from './recorded-offsets';
import type { ActorProofVerifier } from '../src/auth/actor-proof';
import { BatchActors } from './batch-actors';
import { BatchConfigs } from './batch-configs';
import { caughtUpStates, markedCatchUp } from './caught-up-states';
import { decide, type AcceptedRow, type Decision } from './decide-batch';
import type { DeltaOutcomeRow, RecordStateStore, StoredVerdict } from '../src/store/record-states/port';
import { PIPELINE_GROUPS, PIPELINE_TOPICS, persistenceTopicSpec, recordMessageKey } from '../src/log/topology';

export interface DeltaProcessorOptions {
  entities: EntityConfigSource;
  /** Stage 5's proof of each delta's actor. */
  actors: ActorProofVerifier;
  log: WriteLog;
  schemas: RecordSchemas;
  states: RecordStateStore;
  logger: Logger;
  /** Partitions of the deltas topic handled at once; order holds within each (the bound on in-flight work). */
  concurrency?: number;
  /** Persistence offsets whose state is stored, from the start-up catch-up: moves the state checkpoints on. */
  recorded?: RecordedOffsets;
  /**
   * Brings the state store up to the persistence topics; run whenever deltas partitions are assigned, before their
   * deltas are decided, and whenever the store says it may have lost recorded verdicts (BatchReads.markLost).
   * Another instance may have died with events published and their states not yet recorded: without this, its
   * redelivered deltas would be decided again and their events published twice.
   */
  catchUp?: () => Promise<void>;
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
  const createdTopics = new Set<string>();
  const catchUp = options.catchUp && markedCatchUp(options.states, options.catchUp);
  // One round decides the batches of several partitions together (src/log/batch-rounds.ts); each gets its answer.
  const rounds = new BatchRounds<readonly LogRecord<DeltaEnvelope>[], BatchHandled>(
    async (batches) => {
      const handled = await processBatch(options, createdTopics, batches.flat(), catchUp);
      return batches.map(() => handled);
    },
    ROUND_RECORDS,
    (records) => records.length,
  );
  const subscription = await log.subscribe<DeltaEnvelope>({
    groupId: PIPELINE_GROUPS.pipeline,
    topics: [PIPELINE_TOPICS.deltas],
    partitionsConsumedConcurrently: options.concurrency ?? 6,
    readerSchema: options.schemas.DeltaEnvelope,
    // A delta is decided while its own group commit is still under way, not one commit later: whatever the
    // decision changes reaches anyone only through the events, rejections and outcomes published afterwards, and
    // those are durable no earlier than the delta (see readWhileCommitting). The state store is written after them.
    readWhileCommitting: true,
    handleBatch: (batch) => rounds.handle(batch.records),
    ...(catchUp && { onAssigned: catchUp }),
  });
  await subscription.joined;
  const { recorded } = options;
  const storeCheckpoints = async (): Promise<void> => {
    if (!recorded) return;
    const due = recorded.due();
    await options.states.storeCheckpoints(due);
    recorded.stored(due);
  };
  let storing = Promise.resolve();
  const timer =
    recorded &&
    setInterval(() => {
      storing = storing
        .then(storeCheckpoints)
        .catch((err: unknown) => options.logger.warn({ err }, 'state checkpoints not stored; the next start reads a little more'));
    }, CHECKPOINT_INTERVAL_MS);
  return {
    ...subscription,
    stop: async () => {
      clearInterval(timer);
      await subscription.stop();
      await storing;
      await storeCheckpoints().catch((err: unknown) => options.logger.warn({ err }, 'state checkpoints not stored at stop'));
      // Only a processor that catches up has written a mark (markedCatchUp).
      if (catchUp)
        await options.states
          .unmark()
          .catch((err: unknown) => options.logger.warn({ err }, 'catch-up mark not taken away at stop; it stays until the database restarts'));
    },
  };
}

/**
 * Deltas decided together at most, from the batches of several partitions; what a turn hands over beyond that
 * forms further rounds, run side by side (a partition's batch is never split). Under a backlog, rounds of up to
 * 5,000 cost more service CPU per delta than rounds of 1,000 (likely the scavenger: a round's decoded records,
 * decisions and events live across its awaits) and kept PostgreSQL to one statement at a time; 500 was slower again.
 */
const ROUND_RECORDS = 1000;

/** How often the state checkpoints move on (a restart reads the events of at most about this long). */
const CHECKPOINT_INTERVAL_MS = 1000;

type AcceptedDecision = Extract<Decision, { kind: 'accepted' }>;

/**
 * Decides a round's deltas (decide-batch.ts), then writes them with a fixed number of round trips per batch
 * rather than per delta: the events and rejections in one publish, the states and outcomes in one statement,
 * the verdicts in one publish. A failure anywhere throws, so the batch is retried and its offsets are not
 * committed.
 */
async function processBatch(
  options: DeltaProcessorOptions,
  createdTopics: Set<string>,
  records: readonly LogRecord<DeltaEnvelope>[],
  catchUp: (() => Promise<void>) | undefined,
): Promise<BatchHandled> {
  const deltas = records.map((r) => r.value);
  const ctxs = records.map((record) =>
    newDeltaContext(
      record.value,
      { topic: record.topic, partition: record.partition, offset: record.offset },
      { headers: record.headers, timestamp: record.timestamp },
    ),
  );
  // Three independent look-ups, side by side: a token verification need not wait for the state read.
  const [states, configs, actors] = await Promise.all([
    caughtUpStates(options.states, deltas, catchUp),
    BatchConfigs.load(options.entities, deltas),
    BatchActors.prove(options.actors, ctxs),
  ]);
  const decisions = decide(ctxs, { configs, states, actors });
  for (const d of decisions) {
    if (d.kind === 'known' || d.kind === 'repeat') options.logger.debug({ deltaId: d.delta.id }, 'delta seen again: answering its stored outcome');
  }
  const { published } = await persist(options, createdTopics, decisions);
  return { settled: published };
}

/**
 * Events and rejections on the log, then states and outcomes in the store; then every verdict on the outcomes
 * topic, answered as still settling: the partition's next batch is decided meanwhile, and this batch's offset is
 * committed only once the verdicts are on the log (a crash before that delivers the batch again, and its stored
 * outcomes are published again).
 */
async function persist(options: DeltaProcessorOptions, createdTopics: Set<string>, decisions: readonly Decision[]): Promise<{ published: Promise<void> }> {
  const { log, schemas, logger } = options;
  const accepted = decisions.filter((d): d is AcceptedDecision => d.kind === 'accepted');
  const refused = decisions.filter((d): d is Extract<Decision, { kind: 'refused' }> => d.kind === 'refused');
  const newTopics = [...new Set(accepted.map((d) => d.topic))].filter((t) => !createdTopics.has(t));
  if (newTopics.length > 0) {
    await log.createTopics(newTopics.map(persistenceTopicSpec));
    for (const topic of newTopics) createdTopics.add(topic);
  }
  const positions = await log.publish([
    ...accepted.map((d) => ({
      topic: d.topic,
      key: recordMessageKey(d.delta.tenant, d.delta.entity, d.delta.key),
      value: d.event,
      schema: schemas.EntityEvent,
      headers: traceHeaders(d.delta),
    })),
    ...refused.map((d) => ({
      topic: PIPELINE_TOPICS.rejections,
      key: recordMessageKey(d.delta.tenant, d.delta.entity, d.delta.key),
      value: d.rejection,
      schema: schemas.Rejection,
      headers: traceHeaders(d.delta),
    })),
  ]);
  accepted.forEach((d, i) => {
    const position = positions[i];
    // Thrown, the batch is retried and its offsets stay uncommitted.
    if (!position)
      throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'the log acknowledged no position for a persisted event', { stage: 'persist', topic: d.topic });
    d.outcome = {
      status: 'accepted',
      deltaId: d.delta.id,
      eventId: d.event.eventId,
      version: d.event.version,
      topic: d.topic,
      partition: position.partition,
      offset: position.offset,
    };
  });
  const verdicts: StoredVerdict[] = [];
  for (const d of decisions) {
    if (d.kind === 'accepted')
      verdicts.push({
        status: 'accepted',
        id: { tenant: d.delta.tenant, entity: d.delta.entity, key: d.delta.key },
        state: d.state,
        outcome: d.outcome as AcceptedRow,
      });
    else if (d.kind === 'refused')
      verdicts.push({ status: 'refused', tenant: d.delta.tenant, outcome: { status: 'refused', deltaId: d.delta.id, problem: d.problem } });
  }
  await options.states.recordVerdicts(verdicts);
  options.recorded?.recorded(accepted.map((d) => d.outcome as AcceptedRow));
  // Per delta at debug, as stream processors log records: at info a deployment wrote a line per delta, which cost
  // the burst 10-40 % of the service's CPU per delta. Verdicts are counted in metrics at any level.
  if (logger.isLevelEnabled('debug')) {
    for (const d of accepted) {
      const { requestId, id: deltaId } = d.delta;
      const { topic, partition, offset, version } = d.outcome as AcceptedRow;
      logger.debug({ requestId, deltaId, eventId: d.event.eventId, topic, partition, offset, version, stripped: d.stripped }, 'delta accepted');
    }
  }
  for (const d of refused) {
    logger.info(
      { requestId: d.delta.requestId, deltaId: d.delta.id, code: d.refusal.code, stage: d.problem.stage, field: d.refusal.details.field },
      'delta refused',
    );
  }
  const outcomes = decisions.map((d) => outcomeOf(d.delta, rowOf(d.kind === 'repeat' ? d.of : d)));
  // The verdicts are final once events and states are stored: this instance's callers hear them now, the
  // outcomes topic carries them to callers waiting on other instances.
  for (const outcome of outcomes) options.onVerdict?.(outcome);
  const published = log.publish(
    outcomes.map((outcome) => ({ topic: PIPELINE_TOPICS.outcomes, key: outcome.deltaId, value: outcome, schema: schemas.DeltaOutcome })),
  );
  return { published: published.then(() => undefined) };
}

function rowOf(d: Exclude<Decision, { kind: 'repeat' }>): DeltaOutcomeRow {
  if (d.kind === 'known') return d.outcome;
  if (d.kind === 'refused') return { status: 'refused', deltaId: d.delta.id, problem: d.problem };
  return d.outcome as AcceptedRow;
}

function outcomeOf(delta: DeltaEnvelope, row: DeltaOutcomeRow): DeltaOutcome {
  // Both shapes are written out whole, without spreads: one hidden class per status on this per-delta path.
  const { id: deltaId, tenant, entity, key } = delta;
  const decidedAt = Date.now();
  if (row.status === 'accepted') {
    const { version, eventId, topic, partition, offset } = row;
    return {
      deltaId,
      tenant,
      entity,
      key,
      decidedAt,
      status: 'accepted',
      version,
      eventId,
      topic,
      partition,
      offset,
      code: null,
      stage: null,
      message: null,
      details: null,
    };
  }
  const problem = row.problem as { code?: string; stage?: string; message?: string; details?: unknown };
  return {
    deltaId,
    tenant,
    entity,
    key,
    decidedAt,
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

const traceHeaders = (delta: DeltaEnvelope): Record<string, string> => ({
  'delta-id': delta.id,
  ...(delta.requestId !== null && { 'request-id': delta.requestId }),
});
