import { map, type MonoTypeOperatorFunction } from 'rxjs';
import { isDeltabrokerError, type DeltabrokerError } from '../../src/errors';
import type { DeltaContext } from '../context';

/** A delta on its way through the stages: still going, or refused by one of them (later stages let it pass). */
export interface Candidate {
  readonly ctx: DeltaContext;
  readonly refusal?: DeltabrokerError;
}

/** Bad input is a verdict; an unavailable dependency is not (the delta is retried later). */
const isRefusal = (error: unknown): error is DeltabrokerError => isDeltabrokerError(error) && !error.retriable;

/**
 * Turns one stage's step into an RxJS operator over the candidate stream. A refusal the step throws becomes the
 * candidate's verdict, stamped with the stage's name unless it names one; any other error fails the stream, so
 * the batch is retried. Steps are synchronous: what they read (configurations, record states) is loaded for the
 * batch beforehand, so each delta passes every stage before the next one enters. A step sets its part on the
 * context it is given, after its checks (contexts are made with every field present, newDeltaContext): one object
 * per delta with one shape, where a copy per stage made seven objects of six shapes.
 */
export function stage(name: string, step: (ctx: DeltaContext) => void): MonoTypeOperatorFunction<Candidate> {
  return map((candidate) => {
    if (candidate.refusal) return candidate;
    try {
      step(candidate.ctx);
      return candidate;
    } catch (error) {
      if (!isRefusal(error)) throw error;
      error.details.stage ??= name;
      return { ctx: candidate.ctx, refusal: error };
    }
  });
}
