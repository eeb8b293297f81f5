/**
 * decide(): a batch's deltas through the stages, in order, against a view of the record states that sees the
 * batch's own verdicts. Pure of I/O: what the stages read (configurations, states, proven actors) was loaded
 * for the batch beforehand, so a batch is decided the same way against the PostgreSQL store or the in-memory one.
 */
import { randomUUID } from 'node:crypto';
import { filter, from } from 'rxjs';
import type { DeltabrokerError } from '../src/errors';
import type { DeltaEnvelope, EntityEvent, Rejection } from '../src/log';
import type { DeltaOutcomeRow, RecordState } from '../src/store/record-states/port';
import type { BatchActors } from './batch-actors';
import type { BatchConfigs } from './batch-configs';
import type { BatchStateView } from './batch-state-view';
import type { DeltaContext } from './context';
import { deltaKey, eventIdOf, recordMessageKey } from '../src/log/topology';
import { stages } from './pipeline';

export type AcceptedRow = Extract<DeltaOutcomeRow, { status: 'accepted' }>;

/** What the pipeline made of one delta of a batch. */
export type Decision =
  /** `outcome` is set once the log acknowledged the event's position. */
  | { kind: 'accepted'; delta: DeltaEnvelope; event: EntityEvent; topic: string; state: RecordState; stripped: string[] | undefined; outcome?: AcceptedRow }
  | { kind: 'refused'; delta: DeltaEnvelope; rejection: Rejection; problem: Record<string, unknown>; refusal: DeltabrokerError }
  /** Decided before this batch (a redelivery): its stored outcome is published again. */
  | { kind: 'known'; delta: DeltaEnvelope; outcome: DeltaOutcomeRow }
  /** The same delta earlier in this batch: answered with that decision. */
  | { kind: 'repeat'; delta: DeltaEnvelope; of: Extract<Decision, { kind: 'accepted' | 'refused' }> };

export interface BatchInputs {
  readonly configs: BatchConfigs;
  readonly states: BatchStateView;
  readonly actors: BatchActors;
}

/** One decision per delta, in the batch's order. An error that is not a refusal (a bug, a dependency) throws. */
export function decide(ctxs: readonly DeltaContext[], inputs: BatchInputs): Decision[] {
  const { states } = inputs;
  const decided = new Map<string, Extract<Decision, { kind: 'accepted' | 'refused' }>>();
  const decisions: Decision[] = [];
  // A delta decided before (stored outcome, or earlier in this batch) is answered again, not run through the stages.
  const seenBefore = (delta: DeltaEnvelope): boolean => {
    const earlier = decided.get(deltaKey(delta.tenant, delta.id));
    const known = states.storedOutcome(delta.id, delta.tenant);
    if (earlier) decisions.push({ kind: 'repeat', delta, of: earlier });
    else if (known) decisions.push({ kind: 'known', delta, outcome: known });
    return earlier !== undefined || known !== undefined;
  };
  let failure: { error: unknown } | undefined;
  // Every operator is synchronous: this runs the whole batch, in order, before subscribe returns.
  from(ctxs)
    .pipe(
      filter((ctx) => !seenBefore(ctx.delta)),
      stages({ configs: inputs.configs, states, actors: inputs.actors }),
    )
    .subscribe({
      next: (verdict) => {
        const decision = verdict.accepted ? accept(states, verdict.ctx) : refuse(verdict.ctx, verdict.refusal);
        decided.set(deltaKey(decision.delta.tenant, decision.delta.id), decision);
        decisions.push(decision);
      },
      error: (error: unknown) => (failure = { error }),
    });
  if (failure) throw failure.error;
  return decisions;
}

function accept(view: BatchStateView, ctx: DeltaContext): Extract<Decision, { kind: 'accepted' }> {
  const { delta } = ctx;
  // Events carry the record's whole state after them: stored fields, overwritten by the accepted ones.
  const current = ctx.current?.deleted === false ? ctx.current.doc : null;
  const doc = delta.operation === 'delete' ? null : { ...current, ...ctx.fields };
  const version = ctx.nextVersion as number;
  const event: EntityEvent = {
    eventId: eventIdOf(delta.tenant, delta.id),
    deltaId: delta.id,
    requestId: delta.requestId,
    tenant: delta.tenant,
    entity: delta.entity,
    operation: delta.operation,
    key: delta.key,
    version,
    payload: doc === null ? null : JSON.stringify(doc),
    // The proven actor: the token's roles, never the ones the envelope claims. Record headers (the token) stop here.
    actor: ctx.actor ?? delta.actor,
    origin: delta.origin,
    occurredAt: delta.occurredAt,
    recordedAt: Date.now(),
  };
  const state: RecordState = { version, deleted: doc === null, doc };
  view.put({ tenant: delta.tenant, entity: delta.entity, key: delta.key }, state);
  return { kind: 'accepted', delta, event, topic: ctx.persistenceTopic as string, state, stripped: ctx.stripped };
}

function refuse(ctx: DeltaContext, refusal: DeltabrokerError): Extract<Decision, { kind: 'refused' }> {
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
  return { kind: 'refused', delta, rejection, refusal, problem: { code: refusal.code, stage: stage ?? 'pipeline', message: refusal.message, details } };
}
