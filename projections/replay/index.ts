/** Replay and rebuild of projections: shadows filled from the persistence topic, swapped in, and verify. */
export { rebuildProjections, type RunOptions } from './rebuild';
export { planReplay } from './plan';
export { verifyProjection } from './verify';
export type { ReplayContext } from './replay-context';
export { projectionReplay } from './projection-replay';
export { shadowName } from './shadow-names';
