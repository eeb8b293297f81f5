/** The engine-free parts of replay: shadow names, progress arithmetic and its two renderings. (No I/O: unit level.) */
import { shadowName } from '../../../projections/replay';
import { formatDuration, periodicProgress, progressLine, ReplayProgress, terminalProgress, type ProgressSnapshot } from '../../../src/replay';

describe('shadow names', () => {
  test('append the purpose, and stay within 63 characters with a hash of the whole live name', () => {
    expect(shadowName('acme_merchant_account', 'rebuild')).toBe('acme_merchant_account__rebuild');
    const long = `t_${'x'.repeat(60)}`;
    const other = `t_${'x'.repeat(59)}y`;
    expect(shadowName(long, 'verify')).toHaveLength(63);
    expect(shadowName(long, 'verify').endsWith('__verify')).toBe(true);
    expect(shadowName(long, 'verify')).not.toBe(shadowName(other, 'verify'));
  });
});

describe('replay progress', () => {
  test('counts done and total, lowers the total for partitions that start later, and forces total = done at the end', () => {
    const progress = new ReplayProgress();
    const seen: ProgressSnapshot[] = [];
    progress.onChange((p) => seen.push(p));
    progress.enter('replaying');
    progress.addTotal(1000);
    progress.advance(200, 300);
    expect(progress.snapshot()).toMatchObject({ phase: 'replaying', done: 200, total: 700 });
    progress.enter('done');
    expect(progress.snapshot()).toMatchObject({ phase: 'done', done: 200, total: 200, etaSeconds: 0 });
    expect(seen.map((p) => p.phase)).toEqual(['replaying', 'replaying', 'replaying', 'done']);
  });

  test('a line shows the bar, percent, counts, rate and ETA', () => {
    const line = progressLine({ phase: 'replaying', done: 2500, total: 10_000, rate: 1250, etaSeconds: 6, elapsedSeconds: 2 });
    expect(line).toBe(`replaying   [${'#'.repeat(8)}${'-'.repeat(22)}]  25% 2,500/10,000 events  1,250/s  ETA 00:06`);
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(null)).toBe('--:--');
  });

  test('plain progress lines come at each phase change and at most once per interval in between', () => {
    const emitted: string[] = [];
    const listener = periodicProgress((p) => emitted.push(`${p.phase}:${p.done}`), 60_000);
    const at = (phase: ProgressSnapshot['phase'], done: number): ProgressSnapshot => ({ phase, done, total: 10, rate: 0, etaSeconds: null, elapsedSeconds: 0 });
    [at('preparing', 0), at('replaying', 1), at('replaying', 2), at('replaying', 3), at('swapping', 10), at('done', 10)].forEach(listener);
    expect(emitted).toEqual(['preparing:0', 'replaying:1', 'swapping:10', 'done:10']);
  });

  test('on a terminal the bar is redrawn in place, at each phase change at once, and ends with a newline', () => {
    const written: string[] = [];
    const stream = { isTTY: true, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
    const bar = terminalProgress(stream, 60_000);
    const at = (phase: ProgressSnapshot['phase'], done: number): ProgressSnapshot => ({ phase, done, total: 10, rate: 5, etaSeconds: 1, elapsedSeconds: 1 });
    [at('replaying', 1), at('replaying', 2), at('done', 10)].forEach(bar.listener);
    bar.finish();
    expect(written.map((w) => w.slice(0, 12))).toEqual(['\rreplaying  ', '\rdone       ', '\rdone       ', '\n']);
    expect(written.slice(0, 3).every((w) => w.endsWith('\x1b[K'))).toBe(true);
  });
});
