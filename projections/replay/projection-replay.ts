import type { ProjectionReplay } from '../../src/replay';
import { planReplay } from './plan';
import { rebuildProjections } from './rebuild';
import type { ReplayContext } from './replay-context';
import { verifyProjection } from './verify';

/** The replay port on the service's ports in `ctx`; a run with its own logger logs there. */
export function projectionReplay(ctx: ReplayContext): ProjectionReplay {
  const withLogger = (run: { logger?: ReplayContext['logger'] }): ReplayContext => (run.logger ? { ...ctx, logger: run.logger } : ctx);
  return {
    plan: (request) => planReplay(ctx, request),
    rebuild: (request, run = {}) => rebuildProjections(withLogger(run), request, run),
    verify: (request, run = {}) => verifyProjection(withLogger(run), request, run),
  };
}
