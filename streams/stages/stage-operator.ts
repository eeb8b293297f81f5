import { concatMap, type OperatorFunction } from 'rxjs';
import { isDeltabrokerError } from '../../src/errors';
import type { DeltaContext } from '../context';

/**
 * Turns one stage's step into an RxJS operator. Deltas pass one at a time, in order (concatMap); a refusal the
 * step throws is stamped with the stage's name unless it already names one.
 */
export function stage(name: string, step: (ctx: DeltaContext) => DeltaContext | Promise<DeltaContext>): OperatorFunction<DeltaContext, DeltaContext> {
  return concatMap(async (ctx) => {
    try {
      return await step(ctx);
    } catch (error) {
      if (isDeltabrokerError(error)) error.details.stage ??= name;
      throw error;
    }
  });
}
