import type { Logger } from '../logger';
import type { ReplayProgress } from './progress';
import type { RebuildResult, ReplayPlan, VerifyReport } from './reports';
import type { ReplayRequest, VerifyRequest } from './requests';

export interface ReplayRunOptions {
  readonly progress?: ReplayProgress;
  /** Stops the work between batches; a rebuild's shadows stay, and the next replay resumes them. */
  readonly signal?: AbortSignal;
  /** Where this run logs (a job's own logger); the replay's logger by default. */
  readonly logger?: Logger;
}

export interface VerifyRunOptions extends ReplayRunOptions {
  /** How many differing rows to list (default 20). */
  readonly maxDifferences?: number;
}

/**
 * Replay and verify of an entity's projections, as HTTP routes, the CLI and jobs use them. The projections
 * implement it (projections/replay/projection-replay.ts); the composition root wires it to the service's ports.
 */
export interface ProjectionReplay {
  /** What a rebuild would do, read without writing anything. */
  plan(request: ReplayRequest): Promise<ReplayPlan>;
  /** Rebuilds the projections into shadows from the persistence topic, then swaps them in. */
  rebuild(request: ReplayRequest, run?: ReplayRunOptions): Promise<RebuildResult>;
  /** Replays into a temporary table and compares it with the live table. */
  verify(request: VerifyRequest, run?: VerifyRunOptions): Promise<VerifyReport>;
}
