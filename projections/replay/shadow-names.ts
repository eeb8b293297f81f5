/**
 * Names of the shadow copies a replay builds beside the live projections, and of their checkpoints. A shadow
 * name is the live name plus a suffix; a live name too long for the suffix (Postgres identifiers and search
 * index names stop at 63 characters) is shortened and keeps a hash of the whole name, so two long names
 * never share a shadow.
 */
import { createHash } from 'node:crypto';

const MAX_NAME = 63;

export type ShadowPurpose = 'rebuild' | 'verify';

export function shadowName(live: string, purpose: ShadowPurpose): string {
  const suffix = `__${purpose}`;
  if (live.length + suffix.length <= MAX_NAME) return `${live}${suffix}`;
  const hash = createHash('sha256').update(live).digest('hex').slice(0, 8);
  return `${live.slice(0, MAX_NAME - suffix.length - hash.length - 1)}_${hash}${suffix}`;
}

/** The checkpoints' name of a shadow (a row family of `projection_checkpoints` apart from every live projector). */
export const shadowProjector = (kind: 'postgres' | 'search', purpose: ShadowPurpose, shadow: string): string => `deltabroker-${purpose}-${kind}:${shadow}`;
