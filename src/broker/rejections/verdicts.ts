import type { DeltaOutcome } from '../../log';
import { deltaKey } from '../../log/topology';
import type { DeltaOutcomeRow, DeltaOutcomeReader } from '../../store/record-states/port';

/** The pipeline's verdict on one delta, as operators see it. */
export type DeltaVerdict =
  | {
      readonly status: 'accepted';
      readonly deltaId: string;
      readonly tenant: string;
      readonly version: number;
      readonly eventId: string;
      readonly position: { readonly topic: string; readonly partition: number; readonly offset: string };
    }
  | {
      readonly status: 'refused';
      readonly deltaId: string;
      readonly tenant: string;
      readonly code: string;
      readonly stage: string | null;
      readonly field: string | null;
      readonly rule: string | null;
      readonly message: string | null;
    };

/**
 * Where verdicts are looked up: the pipeline's state store (the service, or the CLI with DATABASE_URL), or the
 * outcomes topic when no store is at hand (the CLI beside a service on the embedded defaults).
 */
export interface VerdictLookup {
  /** The verdicts known for these tenants' deltas, by `deltaKey(tenant, deltaId)`; a delta without one is absent. */
  verdicts(deltas: readonly TenantDelta[]): Promise<Map<string, DeltaVerdict>>;
}

/** Delta ids are unique only within a tenant. */
export interface TenantDelta {
  readonly tenant: string;
  readonly deltaId: string;
}

interface RefusalProblem {
  code?: string;
  stage?: string;
  message?: string;
  details?: { field?: unknown; rule?: unknown };
}

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function refused(deltaId: string, tenant: string, problem: RefusalProblem): DeltaVerdict {
  return {
    status: 'refused',
    deltaId,
    tenant,
    code: problem.code ?? 'DB_INTERNAL',
    stage: textOrNull(problem.stage),
    field: textOrNull(problem.details?.field),
    rule: textOrNull(problem.details?.rule),
    message: textOrNull(problem.message),
  };
}

/** A verdict as the outcomes topic carries it. */
export function verdictOfOutcome(o: DeltaOutcome): DeltaVerdict {
  if (o.status === 'accepted') {
    return {
      status: 'accepted',
      deltaId: o.deltaId,
      tenant: o.tenant,
      version: Number(o.version),
      eventId: o.eventId ?? '',
      position: { topic: o.topic ?? '', partition: Number(o.partition), offset: o.offset ?? '' },
    };
  }
  let details: RefusalProblem['details'] = {};
  try {
    details = JSON.parse(o.details ?? '{}') as RefusalProblem['details'];
  } catch {
    // A verdict whose details are not JSON still says who refused and why, in its other fields.
  }
  return refused(o.deltaId, o.tenant, {
    ...(o.code !== null && { code: o.code }),
    ...(o.stage !== null && { stage: o.stage }),
    ...(o.message !== null && { message: o.message }),
    details,
  });
}

function verdictOfRow(tenant: string, row: DeltaOutcomeRow): DeltaVerdict {
  if (row.status === 'refused') return refused(row.deltaId, tenant, row.problem);
  const { deltaId, version, eventId, topic, partition, offset } = row;
  return { status: 'accepted', deltaId, tenant, version, eventId, position: { topic, partition, offset } };
}

/** Verdicts from the pipeline's state store: one query per look-up. */
export class StoreVerdicts implements VerdictLookup {
  constructor(private readonly states: DeltaOutcomeReader) {}

  async verdicts(deltas: readonly TenantDelta[]): Promise<Map<string, DeltaVerdict>> {
    const rows = await this.states.outcomes(deltas);
    return new Map(rows.map(({ tenant, outcome }) => [deltaKey(tenant, outcome.deltaId), verdictOfRow(tenant, outcome)]));
  }
}
