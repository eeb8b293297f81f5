/** Replay and rebuild of projections: shadows filled from the persistence topic, swapped in, and verify. */
export { rebuildProjections, type RebuildResult, type RunOptions, type TargetOutcome } from './rebuild';
export { planReplay, type ReplayPlan, type PartitionPlan, type TargetPlan } from './plan';
export { verifyProjection, type VerifyReport, type VerifyOptions } from './verify';
export type { ReplayContext, ReplayRequest, ReplayFrom, TargetChoice } from './replay-context';
export { ReplayProgress, type ProgressSnapshot, type ReplayPhase } from './progress';
export { terminalProgress, periodicProgress, loggedProgress, progressLine } from './progress-render';
export { ReplayJobs, type ReplayJobView, type JobKind } from './replay-jobs';
export { shadowName } from './shadow-names';
export type { TableComparison, RowDifference, TableDigest } from './table-compare';
