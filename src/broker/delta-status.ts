import type { LogPosition } from '../log';
import type { DeltaOutcomeRow, DeltaOutcomeReader } from '../store/record-states/port';

export type DeltaStatus =
  | { deltaId: string; status: 'pending' | 'unknown' }
  | { deltaId: string; status: 'accepted'; eventId: string; version: number; position: LogPosition }
  | ({ deltaId: string; status: 'refused' } & Record<string, unknown>);

export interface DeltaStatusOptions {
  readonly states: DeltaOutcomeReader;
  /** Deltas on the log the pipeline has not decided yet. */
  readonly backlog: () => Promise<number>;
}

/**
 * GET /deltas/:id (seed 4.2's asynchronous writes): the verdict on one of the caller's deltas. Without one,
 * the delta is `pending` while the pipeline has undecided deltas (it may be among them), and `unknown` once it
 * has none: every delta on the log before that moment was decided, and a decided one has its verdict stored
 * before the pipeline moves past it. So a mistyped id, another tenant's id, or a write whose publish failed is
 * not `pending` forever.
 */
export class DeltaStatusService {
  constructor(private readonly o: DeltaStatusOptions) {}

  async statusOf(tenant: string, deltaId: string): Promise<DeltaStatus> {
    const decided = await this.o.states.outcome(deltaId, tenant);
    if (decided) return answerOf(decided);
    if ((await this.o.backlog()) > 0) return { deltaId, status: 'pending' };
    // Decided between the first look and the backlog check: its verdict is stored now.
    const late = await this.o.states.outcome(deltaId, tenant);
    return late ? answerOf(late) : { deltaId, status: 'unknown' };
  }
}

function answerOf(outcome: DeltaOutcomeRow): DeltaStatus {
  if (outcome.status === 'refused') return { deltaId: outcome.deltaId, status: 'refused', ...outcome.problem };
  const { deltaId, eventId, version, topic, partition, offset } = outcome;
  return { deltaId, status: 'accepted', eventId, version, position: { topic, partition, offset } };
}
