import { catchError, lastValueFrom, map, of, type Observable } from 'rxjs';
import { DeltabrokerError, isDeltabrokerError } from '../src/errors';
import type { EntityConfigSource } from '../src/tenant';
import type { ActorProofVerifier } from './actor-proof';
import type { DeltaContext } from './context';
import type { RecordStateReader } from './record-state-store';
import { checkPermission } from './stages/check-permission';
import { checkSensitiveEncrypted } from './stages/check-sensitive-encrypted';
import { ensureRecordKey } from './stages/ensure-record-key';
import { filterPermittedFields } from './stages/filter-permitted-fields';
import { locatePersistenceTopic } from './stages/locate-persistence-topic';
import { lookupEntityConfig } from './stages/lookup-entity-config';
import { validateDelta } from './stages/validate-delta';

export type Verdict = { accepted: true; ctx: DeltaContext } | { accepted: false; ctx: DeltaContext; refusal: DeltabrokerError };

export interface PipelineDependencies {
  entities: EntityConfigSource;
  states: RecordStateReader;
  actors: ActorProofVerifier;
}

/**
 * The processing stages of seed section 3, in its order, as one RxJS pipeline. Errors that are not refusals
 * (a store that is down) are not verdicts: they propagate so the batch is retried and nothing is committed.
 */
export function decide(deps: PipelineDependencies, ctx: DeltaContext): Promise<Verdict> {
  const verdict$: Observable<Verdict> = of(ctx).pipe(
    lookupEntityConfig(deps.entities),
    validateDelta(),
    ensureRecordKey(deps.states),
    locatePersistenceTopic(),
    checkPermission(deps.actors),
    filterPermittedFields(),
    checkSensitiveEncrypted(),
    map((accepted): Verdict => ({ accepted: true, ctx: accepted })),
    catchError((error: unknown) => {
      if (isDeltabrokerError(error) && isRefusal(error)) return of<Verdict>({ accepted: false, ctx, refusal: error });
      throw error;
    }),
  );
  return lastValueFrom(verdict$);
}

/** Bad input is a verdict; an unavailable dependency is not (the delta is retried later). */
const isRefusal = (error: DeltabrokerError): boolean => !error.retriable;
