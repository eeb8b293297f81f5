/**
 * One benchmark figure beside the baseline measured in the same run. Both are rates (higher is better), so
 * the ratio figure / baseline reads the same way on every row: 0.25 means a quarter of the baseline's rate.
 */
export interface Figure {
  /** What was measured, e.g. "end to end, kafkajs producer → projected + actions". */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline: { readonly name: string; readonly value: number; readonly unit: string };
  /** Latencies, sizes, correctness checks: printed beside the row. */
  readonly notes?: string;
}

export const ratioOf = (figure: Figure): number => (figure.baseline.value > 0 ? figure.value / figure.baseline.value : Number.NaN);

/** The value at quantile q (0..1) of ascending-sorted numbers. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export const secondsSince = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;

const number = (n: number): string => (!Number.isFinite(n) ? 'n/a' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** The figures as one fixed-width table: figure, its baseline, ratio, notes. */
export function formatTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    f.name,
    `${number(f.value)} ${f.unit}`,
    f.baseline.name,
    `${number(f.baseline.value)} ${f.baseline.unit}`,
    formatRatio(ratioOf(f)),
    f.notes ?? '',
  ]);
  const header = ['figure', 'value', 'baseline (same run)', 'baseline value', 'ratio', 'notes'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 1 || i === 3 || i === 4 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

/** Three significant digits, so small ratios stay readable (0.000471, not 0.000). */
const formatRatio = (r: number): string => (Number.isFinite(r) ? (r >= 1000 ? r.toFixed(0) : Number(r.toPrecision(3)).toString()) : 'n/a');
