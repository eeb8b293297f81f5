/** The replay port: what replay and verify of projections take and answer, and their progress. */
export type * from './requests';
export type * from './reports';
export type * from './port';
export { ReplayProgress, type ProgressListener, type ProgressSnapshot, type ReplayPhase } from './progress';
export { formatDuration, loggedProgress, periodicProgress, progressLine, terminalProgress } from './progress-render';
export type * from './recovery';
