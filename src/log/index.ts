/** The write log as the rest of the service sees it: the port and the record schemas (no engine code). */
export type * from './port';
export type * from './log-admin';
export type * from './cluster-admin';
export * from './schemas';
export { DECODE_REASONS, type DecodeReason } from './rejection-reasons';
export { topicRecreated, isTopicRecreated, assertPositionHeld, lostPositionOf, settledBeyondEnd, type LostPosition } from './lost-position';
export { BatchRounds, LINGER_BELOW_EVENTS } from './batch-rounds';
