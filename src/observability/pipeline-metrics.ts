/** Hooks for the pipeline's `onVerdict` and the table projector's `onBatch` options. */
import type { DeltaOutcome } from '../log';
import type { ServiceMetrics } from './metrics';

/** Counts a published verdict. A delta redelivered after a crash is answered, and counted, again. */
export function countVerdict(metrics: ServiceMetrics, outcome: DeltaOutcome): void {
  metrics.pipelineVerdicts.inc({ verdict: outcome.status, stage: outcome.stage ?? '', code: outcome.code ?? '' });
}

export function countProjected(metrics: ServiceMetrics, projector: string, report: { readonly appliedOffsets: readonly string[] }): void {
  metrics.projectionRecordsApplied.inc({ projector }, report.appliedOffsets.length);
}
