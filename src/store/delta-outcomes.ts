/** The outcome of one delta, kept so a redelivered delta is answered again instead of applied twice. */
export type DeltaOutcomeRow =
  | { status: 'accepted'; deltaId: string; eventId: string; version: number; topic: string; partition: number; offset: string }
  | { status: 'refused'; deltaId: string; problem: Record<string, unknown> };

/**
 * The pipeline's stored verdicts as the services read them (a repeated Idempotency-Key, GET /deltas/:id, the
 * rejections' retry chains). The pipeline's state store (streams/record-state-store.ts) implements it.
 */
export interface DeltaOutcomeReader {
  /** The stored outcome of `tenant`'s delta (delta ids are unique per tenant only). */
  outcome(deltaId: string, tenant: string): Promise<DeltaOutcomeRow | undefined>;
  /** The stored outcomes of several deltas in one query, by deltaKey(tenant, delta id). */
  outcomes(deltas: readonly { tenant: string; deltaId: string }[]): Promise<Map<string, DeltaOutcomeRow>>;
}
