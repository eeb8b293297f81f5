import { map, type OperatorFunction } from 'rxjs';
import type { DeltabrokerError } from '../src/errors';
import type { BatchConfigs } from './batch-configs';
import type { BatchActors } from './batch-actors';
import type { DeltaContext } from './context';
import type { LoadedStates } from './batch-state-view';
import { checkPermission } from './stages/check-permission';
import { checkSensitiveEncrypted } from './stages/check-sensitive-encrypted';
import { ensureRecordKey } from './stages/ensure-record-key';
import { filterPermittedFields } from './stages/filter-permitted-fields';
import { locatePersistenceTopic } from './stages/locate-persistence-topic';
import { lookupEntityConfig } from './stages/lookup-entity-config';
import type { Candidate } from './stages/stage-operator';
import { validateDelta } from './stages/validate-delta';

export type Verdict = { accepted: true; ctx: DeltaContext } | { accepted: false; ctx: DeltaContext; refusal: DeltabrokerError };

/** What the stages read, loaded for one batch before it is decided. */
export interface PipelineDependencies {
  configs: BatchConfigs;
  states: LoadedStates;
  actors: BatchActors;
}

/**
 * The processing stages of seed section 3, in its order, as operators over a stream of deltas. Every stage is
 * synchronous, so a delta passes all of them (and whoever subscribes takes its verdict) before the next delta
 * enters: a later delta of a batch sees the state an earlier one produced. Refusals are verdicts; errors that
 * are not (a store that is down) fail the stream, so the batch is retried and nothing is committed.
 */
export function stages(deps: PipelineDependencies): OperatorFunction<DeltaContext, Verdict> {
  return (deltas) =>
    deltas.pipe(
      map((ctx): Candidate => ({ ctx })),
      lookupEntityConfig(deps.configs),
      validateDelta(),
      ensureRecordKey(deps.states),
      locatePersistenceTopic(),
      checkPermission(deps.actors),
      filterPermittedFields(),
      checkSensitiveEncrypted(),
      map((c): Verdict => (c.refusal ? { accepted: false, ctx: c.ctx, refusal: c.refusal } : { accepted: true, ctx: c.ctx })),
    );
}
