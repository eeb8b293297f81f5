/**
 * What a figure should reach (issue 34's decisions): a bound on its ratio to the same-run baseline, or, for a
 * latency or a size, on its own value. Rates are bounded from below, CPU per unit of work and latencies from above.
 */
export interface Target {
  readonly on: 'ratio' | 'value';
  readonly atLeast?: number;
  readonly atMost?: number;
}

/**
 * One benchmark figure beside the baseline measured in the same run, and figure / baseline. For rates (most rows)
 * higher is better: 0.25 means a quarter of the baseline's rate. For CPU per unit of work, latencies and sizes
 * lower is better; their target says so.
 */
export interface Figure {
  /** What was measured, e.g. "end to end, kafkajs producer → projected + actions". */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline: { readonly name: string; readonly value: number; readonly unit: string };
  /** Latencies, sizes, correctness checks: printed beside the row. */
  readonly notes?: string;
  readonly target?: Target;
}

export const ratioOf = (figure: Figure): number => (figure.baseline.value > 0 ? figure.value / figure.baseline.value : Number.NaN);

/** The value at quantile q (0..1) of ascending-sorted numbers. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export const secondsSince = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;

const number = (n: number): string => (!Number.isFinite(n) ? 'n/a' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** Whether the figure meets its target; undefined when it has none. */
export function meetsTarget(figure: Figure): boolean | undefined {
  const { target } = figure;
  if (!target) return undefined;
  const measured = target.on === 'ratio' ? ratioOf(figure) : figure.value;
  if (!Number.isFinite(measured)) return false;
  return (target.atLeast === undefined || measured >= target.atLeast) && (target.atMost === undefined || measured <= target.atMost);
}

function formatTarget(figure: Figure): string {
  const { target } = figure;
  if (!target) return '';
  const bound = (sign: string, n: number): string => `${sign} ${target.on === 'ratio' ? formatRatio(n) : `${number(n)} ${figure.unit}`}`;
  const bounds = [target.atLeast !== undefined && bound('≥', target.atLeast), target.atMost !== undefined && bound('≤', target.atMost)];
  return `${bounds.filter(Boolean).join(', ')}${target.on === 'value' ? '' : ' (ratio)'}: ${meetsTarget(figure) ? 'met' : 'NOT MET'}`;
}

/** The figures as one fixed-width table: figure, its baseline, ratio, target, notes. */
export function formatTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    f.name,
    `${number(f.value)} ${f.unit}`,
    f.baseline.name,
    `${number(f.baseline.value)} ${f.baseline.unit}`,
    formatRatio(ratioOf(f)),
    formatTarget(f),
    f.notes ?? '',
  ]);
  const header = ['figure', 'value', 'baseline (same run)', 'baseline value', 'ratio', 'target', 'notes'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 1 || i === 3 || i === 4 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

/** "N of M targets met", and which are not. */
export function targetSummary(figures: readonly Figure[]): string {
  const targeted = figures.filter((f) => f.target);
  const missed = targeted.filter((f) => !meetsTarget(f));
  return `targets met: ${targeted.length - missed.length} of ${targeted.length}${missed.length > 0 ? `; not met: ${missed.map((f) => f.name).join('; ')}` : ''}`;
}

/** Three significant digits, so small ratios stay readable (0.000471, not 0.000). */
const formatRatio = (r: number): string => (Number.isFinite(r) ? (r >= 1000 ? r.toFixed(0) : Number(r.toPrecision(3)).toString()) : 'n/a');
