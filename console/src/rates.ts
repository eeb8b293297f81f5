/** Deltas per second of one entity between two readings of its running counts. */
export interface RatePoint {
  /** End of the interval, in seconds since the epoch (uPlot's time scale). */
  at: number;
  accepted: number;
  refused: number;
}
export interface EntityCounts {
  entity: string;
  accepted: number;
  refused: number;
}
export type RateSeries = Record<string, RatePoint[]>;

/** Readings kept per entity: two minutes at the overview's 2 s. */
export const KEPT_READINGS = 60;

const perSecond = (now: number, before: number, seconds: number) => Math.max(0, now - before) / seconds;

/**
 * Each entity's series with the rates between two readings appended (oldest dropped past KEPT_READINGS). The
 * server keeps no per-second counters: counting on the write path would cost every delta for a page few open.
 */
export function appendRates(series: RateSeries, before: { at: string; entities: EntityCounts[] }, now: { at: string; entities: EntityCounts[] }): RateSeries {
  const seconds = (Date.parse(now.at) - Date.parse(before.at)) / 1000;
  if (!(seconds > 0)) return series;
  const next: RateSeries = {};
  for (const e of now.entities) {
    const was = before.entities.find((b) => b.entity === e.entity);
    const point = {
      at: Date.parse(now.at) / 1000,
      accepted: was ? perSecond(e.accepted, was.accepted, seconds) : 0,
      refused: was ? perSecond(e.refused, was.refused, seconds) : 0,
    };
    next[e.entity] = [...(series[e.entity] ?? []), point].slice(-KEPT_READINGS);
  }
  return next;
}
