import { deltaKey } from '../../log/topology';
import { retryIdOf } from './retry-id';
import type { DeltaVerdict, VerdictLookup } from './verdicts';

/** One retry of a refused delta and what the pipeline made of it (undefined: no verdict seen). */
export interface Attempt {
  readonly deltaId: string;
  readonly retryOf: string;
  readonly verdict: DeltaVerdict | undefined;
}

/**
 * Where the attempts of one refused delta stand. `accepted`: the delta itself or one of its retries was
 * accepted, so it must not be sent again. `refused`: the newest attempt with a verdict was refused; the next
 * retry is `retryIdOf(tenant, latest)` (which may already be on its way: the same id is applied once).
 */
export type ChainState = (
  | { readonly kind: 'accepted'; readonly by: string; readonly attempts: readonly Attempt[] }
  | { readonly kind: 'refused'; readonly latest: string; readonly attempts: readonly Attempt[] }
) & {
  /** The verdict stored for the refused delta itself (its field and rule); undefined when none was found. */
  readonly own: DeltaVerdict | undefined;
};

export interface RefusedDelta {
  readonly tenant: string;
  readonly deltaId: string;
}

/** Verdicts asked for per chain and round: most refused deltas are retried a few times at most. */
const LOOKAHEAD = 4;

export const chainKey = (d: RefusedDelta): string => `${d.tenant}/${d.deltaId}`;

interface Walk {
  readonly start: RefusedDelta;
  /** The newest attempt known to be refused (the refused delta itself at first). */
  latest: string;
  readonly attempts: Attempt[];
  /** Whether the refused delta's own verdict is still to be looked up. */
  first: boolean;
  own: DeltaVerdict | undefined;
}

/** The state of each refused delta's chain of retries, by `<tenant>/<deltaId>`, in few look-ups. */
export async function walkChains(refused: readonly RefusedDelta[], lookup: VerdictLookup): Promise<Map<string, ChainState>> {
  const done = new Map<string, ChainState>();
  let walking: Walk[] = [...new Map(refused.map((d) => [chainKey(d), d])).values()].map((start) => ({
    start,
    latest: start.deltaId,
    attempts: [],
    first: true,
    own: undefined,
  }));
  while (walking.length > 0) {
    const ahead = walking.flatMap((w) => {
      const ids = w.first ? [w.start.deltaId] : [];
      for (let id = w.latest, i = 0; i < LOOKAHEAD; i++) ids.push((id = retryIdOf(w.start.tenant, id)));
      return ids.map((deltaId) => ({ tenant: w.start.tenant, deltaId }));
    });
    const verdicts = await lookup.verdicts(ahead);
    const ofTenant = (id: string, tenant: string): DeltaVerdict | undefined => verdicts.get(deltaKey(tenant, id));
    for (const w of walking) {
      const state = advance(w, ofTenant);
      if (state) done.set(chainKey(w.start), state);
      w.first = false;
    }
    walking = walking.filter((w) => !done.has(chainKey(w.start)));
  }
  return done;
}

/** Follows one chain as far as the verdicts at hand reach; undefined when it needs another look-up. */
function advance(w: Walk, verdictOf: (id: string, tenant: string) => DeltaVerdict | undefined): ChainState | undefined {
  const { tenant, deltaId } = w.start;
  if (w.first) w.own = verdictOf(deltaId, tenant);
  const { own, attempts } = w;
  // The delta itself may have been accepted after all: refused, then redelivered after a crash and decided again.
  if (own?.status === 'accepted') return { kind: 'accepted', by: deltaId, attempts, own };
  for (let i = 0; i < LOOKAHEAD; i++) {
    const id = retryIdOf(tenant, w.latest);
    const verdict = verdictOf(id, tenant);
    if (verdict === undefined) return { kind: 'refused', latest: w.latest, attempts, own };
    attempts.push({ deltaId: id, retryOf: w.latest, verdict });
    if (verdict.status === 'accepted') return { kind: 'accepted', by: id, attempts, own };
    w.latest = id;
  }
  return undefined;
}
