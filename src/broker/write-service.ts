import { randomUUID } from 'node:crypto';
import { DELTA_SEAL_HEADER, type DeltaSeal } from '../auth/delta-seal';
import type { Principal } from '../auth/principal';
import { DeltabrokerError, ERROR_CATALOGUE, type ErrorCode } from '../errors';
import type { DeltaEnvelope, DeltaOutcome, LogPosition, RecordSchemas, WriteLog } from '../log';
import { recordKeyOf, unknownEntity, type EntityConfigSource } from '../tenant';
import type { DeltaOutcomeReader } from '../store/record-states/port';
import { PIPELINE_TOPICS, recordMessageKey, STAGES } from '../log/topology';
import type { OutcomeWaiter } from './outcome-waiter';
import { PublishBatcher } from './publish-batcher';

export type WriteOperation = 'create' | 'update' | 'delete';

export interface WriteCommand {
  entity: string;
  operation: WriteOperation;
  payload: Record<string, unknown>;
  expectedVersion?: number;
  requestId: string;
  /** A caller-chosen delta id (Idempotency-Key): the same key answers the same outcome. */
  deltaId?: string;
  /** Answer once the delta is on the log, without waiting for the pipeline's verdict. */
  async: boolean;
}

export type WriteResult =
  | { status: 'accepted'; deltaId: string; entity: string; key: string; version: number; eventId: string; position: LogPosition }
  | { status: 'pending'; deltaId: string; entity: string; key: string; position: LogPosition };

export interface WriteServiceOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  entities: EntityConfigSource;
  /** A repeated Idempotency-Key answers the stored outcome. */
  states: DeltaOutcomeReader;
  waiter: OutcomeWaiter;
  datacenter: string;
  timeoutMs: number;
  /** Marks the deltas published here as the service's own (their caller's token was verified): stage 5 trusts them. */
  seal: DeltaSeal;
}

/**
 * The HTTP write path (seed 4.2): a create/update/delete becomes a DeltaEnvelope on the deltas topic, exactly
 * what a Kafka producer would publish, and the answer is the pipeline's verdict.
 */
export class WriteService {
  private readonly deltas: PublishBatcher;

  constructor(private readonly o: WriteServiceOptions) {
    this.deltas = new PublishBatcher(o.log);
  }

  async write(principal: Principal, command: WriteCommand): Promise<WriteResult> {
    const config = await this.o.entities.get(principal.tenant, command.entity);
    if (!config) throw unknownEntity(principal.tenant, command.entity);
    const key = recordKeyOf(config, command.payload);
    if (key === undefined) {
      throw new DeltabrokerError('DB_VALIDATION', `the payload must carry the key field${config.key.length > 1 ? 's' : ''} ${config.key.join(', ')}`, {
        field: `payload.${config.key[0]}`,
        rule: 'required',
        stage: STAGES.validate,
      });
    }
    const deltaId = command.deltaId ?? randomUUID();
    if (command.deltaId) {
      const known = await this.o.states.outcome(command.deltaId, principal.tenant);
      if (known?.status === 'accepted')
        return { ...known, entity: command.entity, key, position: { topic: known.topic, partition: known.partition, offset: known.offset } };
      if (known?.status === 'refused') throw refusalFrom(known.problem);
    }
    const delta: DeltaEnvelope = {
      id: deltaId,
      requestId: command.requestId,
      tenant: principal.tenant,
      entity: command.entity,
      operation: command.operation,
      key,
      payload: serializePayload(command.payload),
      actor: { user: principal.user, roles: [...principal.roles] },
      origin: { datacenter: this.o.datacenter },
      occurredAt: Date.now(),
      expectedVersion: command.expectedVersion ?? null,
      retryOf: null,
    };
    const verdict = command.async ? undefined : this.o.waiter.expect(principal.tenant, deltaId, this.o.timeoutMs);
    let position: LogPosition;
    try {
      position = await this.deltas.publish({
        topic: PIPELINE_TOPICS.deltas,
        key: recordMessageKey(delta.tenant, delta.entity, key),
        value: delta,
        schema: this.o.schemas.DeltaEnvelope,
        headers: { 'request-id': command.requestId, 'delta-id': deltaId, [DELTA_SEAL_HEADER]: this.o.seal.seal(delta) },
      });
    } catch (cause) {
      this.o.waiter.cancel(principal.tenant, deltaId);
      throw new DeltabrokerError(
        'DB_DEPENDENCY_UNAVAILABLE',
        'the write log did not acknowledge the delta; it was not written',
        { stage: 'publish' },
        { cause },
      );
    }
    if (!verdict) return { status: 'pending', deltaId, entity: command.entity, key, position };
    const outcome = await verdict;
    if (!outcome) {
      throw new DeltabrokerError(
        'DB_TIMEOUT',
        `no verdict within ${this.o.timeoutMs} ms; the delta is on the log and will be processed: GET /deltas/${deltaId}`,
        {
          stage: 'pipeline',
          deltaId,
        },
      );
    }
    return toResult(outcome, command.entity);
  }
}

/**
 * The payload as the envelope carries it. JSON.stringify alone would write a number that JSON.parse made
 * infinite (1e400, a 400-digit integer) as null, silently changing the value, and throws a RangeError on deeply
 * nested values: both are refused instead.
 */
function serializePayload(payload: Record<string, unknown>): string {
  try {
    return JSON.stringify(payload, (key, value: unknown) => {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new DeltabrokerError('DB_VALIDATION', `${key || 'payload'} is not a finite number`, {
          field: key ? `payload.${key}` : 'payload',
          rule: 'finite-number',
          stage: 'http',
        });
      }
      return value;
    });
  } catch (error) {
    if (error instanceof RangeError)
      throw new DeltabrokerError('DB_VALIDATION', 'the payload is nested too deeply', { field: 'payload', rule: 'max-depth', stage: 'http' });
    throw error;
  }
}

function toResult(outcome: DeltaOutcome, entity: string): WriteResult {
  if (outcome.status === 'refused') {
    throw refusalFrom({
      code: outcome.code ?? undefined,
      stage: outcome.stage ?? undefined,
      message: outcome.message ?? undefined,
      details: JSON.parse(outcome.details ?? '{}') as Record<string, unknown>,
    });
  }
  return {
    status: 'accepted',
    deltaId: outcome.deltaId,
    entity,
    key: outcome.key,
    version: Number(outcome.version),
    eventId: outcome.eventId ?? '',
    position: { topic: outcome.topic ?? '', partition: Number(outcome.partition), offset: outcome.offset ?? '' },
  };
}

/** Rebuilds the pipeline's refusal so the HTTP edge answers it like any other error. */
export function refusalFrom(problem: {
  code?: string | undefined;
  stage?: string | undefined;
  message?: string | undefined;
  details?: Record<string, unknown> | undefined;
}): DeltabrokerError {
  const code = (problem.code && problem.code in ERROR_CATALOGUE ? problem.code : 'DB_INTERNAL') as ErrorCode;
  return new DeltabrokerError(code, problem.message ?? 'refused', { ...problem.details, ...(problem.stage && { stage: problem.stage }) });
}
