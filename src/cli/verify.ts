import type { Command } from 'commander';
import { periodicProgress, progressLine, ReplayProgress, terminalProgress, type ProjectionReplay, type VerifyReport } from '../replay';
import type { Config } from '../config';
import { positiveInt } from './arguments';

/** Runs `work` with the replay port opened from configuration (src/cli/replay.ts), then closes it. */
export type WithReplay = <T>(config: Config, work: (replay: ProjectionReplay, signal: AbortSignal) => Promise<T>) => Promise<T>;

/** Progress on stderr: a bar redrawn in place on a terminal, else a timestamped line every 5 s and at each phase. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): { progress: ReplayProgress; finish(): void } {
  const progress = new ReplayProgress();
  if (stream.isTTY) {
    const bar = terminalProgress(stream);
    progress.onChange(bar.listener);
    let finished = false;
    return { progress, finish: () => void (finished || ((finished = true), bar.finish())) };
  }
  progress.onChange(periodicProgress((p) => void stream.write(`${new Date().toISOString()} ${progressLine(p)}\n`)));
  return { progress, finish: () => undefined };
}

/** Exit code of `verify` when the projection differs from the replay (errors exit with 1). */
export const VERIFY_DIFFERS_EXIT_CODE = 2;

export function formatVerifyReport(r: VerifyReport): string {
  const positions = Object.entries(r.positions)
    .map(([p, o]) => `${p}:${o}`)
    .join(' ');
  const lines = [
    `${r.tenant}/${r.entity}: table ${r.table}, topic ${r.topic} at next offsets ${positions || '(none)'}`,
    `  live:   ${r.live === null ? 'no table' : `${r.live.rows} rows  md5 ${r.live.checksum}`}`,
    `  replay: ${r.replay.rows} rows  md5 ${r.replay.checksum}`,
  ];
  if (r.columnsMissingInLive.length > 0) lines.push(`  columns missing in the live table: ${r.columnsMissingInLive.join(', ')}`);
  lines.push(
    r.equal
      ? '  equal'
      : `  DIFFERENT: ${r.differingRows} row(s) differ${r.differingRows > r.differences.length ? ` (first ${r.differences.length} listed)` : ''}`,
  );
  for (const d of r.differences)
    lines.push(`    ${d.kind.padEnd(18)} key ${d.key}  live version ${d.liveVersion ?? '-'}  replay version ${d.replayVersion ?? '-'}`);
  return lines.join('\n');
}

export function registerVerifyCommand(program: Command, config: () => Config, withReplay: WithReplay): void {
  program
    .command('verify')
    .description(
      `replay an entity's persistence topic into a temporary table and compare it with the live table (row counts, md5 of the rows); exits ${VERIFY_DIFFERS_EXIT_CODE} on a difference`,
    )
    .requiredOption('--entity <name>', 'the entity')
    .option('--tenant <tenant>', 'the tenant', 'acme')
    .option('--json', 'print the report as JSON')
    .option('--max-differences <n>', 'differing rows to list', positiveInt, 20)
    .action(async (o: { entity: string; tenant: string; json?: boolean; maxDifferences: number }) =>
      withReplay(config(), async (replay, signal) => {
        const reporter = progressReporter();
        try {
          const report = await replay.verify({ tenant: o.tenant, entity: o.entity }, { progress: reporter.progress, signal, maxDifferences: o.maxDifferences });
          reporter.finish();
          process.stdout.write(`${o.json ? JSON.stringify(report, null, 2) : formatVerifyReport(report)}\n`);
          if (!report.equal) process.exitCode = VERIFY_DIFFERS_EXIT_CODE;
        } catch (error) {
          reporter.finish();
          throw error;
        }
      }),
    );
}
