import type { Rejection } from '../../log';
import type { Position } from './log-reading';
import { chainKey, type ChainState } from './retry-chains';
import { retryIdOf } from './retry-id';

export type RetryAction = 'sent' | 'would-send' | 'skipped' | 'not-found' | 'not-retriable';

export interface RetryItem {
  /** The refused delta asked for or selected (null: an undecodable record). */
  readonly deltaId: string | null;
  readonly action: RetryAction;
  /** The retry's id and the refused attempt it retries (sent, would-send, or skipped as covered). */
  readonly retry?: { readonly deltaId: string; readonly retryOf: string };
  readonly reason?: string;
  readonly acceptedBy?: string;
}

/** A retry to send: the selected refused delta, where its envelope is, and the retry's id. */
export interface PlannedRetry {
  readonly deltaId: string;
  readonly tenant: string;
  readonly source: Position;
  readonly retry: { readonly deltaId: string; readonly retryOf: string };
}

/** What a retry needs of a rejection: the delta it names and where that delta was read. */
export function retriable(r: Rejection): { tenant: string; deltaId: string; source: Position } | undefined {
  if (r.deltaId === null || r.tenant === null || r.source === null) return undefined;
  return { tenant: r.tenant, deltaId: r.deltaId, source: { topic: r.source.topic, partition: r.source.partition, offset: String(r.source.offset) } };
}

/**
 * Decides, per selected rejection, whether a retry is sent: not for an undecodable record, nor for a delta
 * accepted meanwhile; a delta refused again is retried from its newest refused attempt, and two selected
 * rejections of one chain (a refused delta and its refused retry) send one retry.
 */
export function planRetries(rejections: readonly Rejection[], chains: ReadonlyMap<string, ChainState>): { items: RetryItem[]; sends: PlannedRetry[] } {
  const items: RetryItem[] = [];
  const sends = new Map<string, PlannedRetry>();
  for (const r of rejections) {
    const target = retriable(r);
    const chain = target && chains.get(chainKey(target));
    if (!target || !chain) {
      items.push({
        deltaId: r.deltaId,
        action: 'not-retriable',
        reason: r.deltaId === null ? 'the record could not be decoded: there is no delta to send' : 'the rejection names no source record',
      });
      continue;
    }
    if (chain.kind === 'accepted') {
      items.push({ deltaId: target.deltaId, action: 'skipped', reason: 'accepted', acceptedBy: chain.by });
      continue;
    }
    const end = `${target.tenant}/${chain.latest}`;
    const covering = sends.get(end);
    if (covering) items.push({ deltaId: target.deltaId, action: 'skipped', reason: `covered by the retry of ${covering.deltaId}`, retry: covering.retry });
    else
      sends.set(end, {
        deltaId: target.deltaId,
        tenant: target.tenant,
        source: target.source,
        retry: { deltaId: retryIdOf(target.tenant, chain.latest), retryOf: chain.latest },
      });
  }
  return { items, sends: [...sends.values()] };
}
