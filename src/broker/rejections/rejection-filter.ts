import { DeltabrokerError } from '../../errors';
import type { Rejection } from '../../log';

/** Which rejections an operator asks for; every field given must match. */
export interface RejectionFilter {
  readonly tenant?: string;
  readonly entity?: string;
  readonly stage?: string;
  /** The reason code (`DB_FORBIDDEN`, `DECODE_MAGIC_BYTE`, …). */
  readonly code?: string;
  /** Only rejections made at or after this time (epoch ms). */
  readonly since?: number;
  /** Delta ids; a rejection id also matches (an undecodable record has no delta id). */
  readonly ids?: ReadonlySet<string>;
}

export function matchesFilter(r: Rejection, f: RejectionFilter): boolean {
  return (
    (f.tenant === undefined || r.tenant === f.tenant) &&
    (f.entity === undefined || r.entity === f.entity) &&
    (f.stage === undefined || r.stage === f.stage) &&
    (f.code === undefined || r.reason === f.code) &&
    (f.since === undefined || r.rejectedAt >= f.since) &&
    (f.ids === undefined || (r.deltaId !== null && f.ids.has(r.deltaId)) || f.ids.has(r.id))
  );
}

const DURATION = /^([1-9][0-9]{0,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A `since` as operators write it: an ISO 8601 time (`2026-11-23T06:00:00Z`) or a duration back from `now`
 * (`30m`, `2h`, `7d`). Anything else is refused naming `field`.
 */
export function parseSince(text: string, field: string, stage: string, now: number = Date.now()): number {
  const duration = DURATION.exec(text);
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  const ms = Date.parse(text);
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(text) && !Number.isNaN(ms)) return ms;
  throw new DeltabrokerError('DB_VALIDATION', `${field} must be an ISO 8601 time (2026-11-23T06:00:00Z) or a duration back from now (30m, 2h, 7d)`, {
    field,
    rule: 'time',
    stage,
  });
}
