/** Refused deltas for operators: list, show, retry (the `rejections` CLI commands and the admin routes). */
export {
  RejectionService,
  type RejectionDetail,
  type RejectionServiceOptions,
  type RejectionSummary,
  type RetryReport,
  type RetrySelection,
  type RetryState,
} from './rejection-service';
export { parseSince, type RejectionFilter } from './rejection-filter';
export type { PayloadAccess, PayloadView } from './payload-view';
export type { RetryAction, RetryItem } from './retry-plan';
export { retryIdOf } from './retry-id';
export { OutcomeTopicVerdicts } from './outcome-topic-verdicts';
export { StoreVerdicts, type DeltaVerdict, type VerdictLookup } from './verdicts';
