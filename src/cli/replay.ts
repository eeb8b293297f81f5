import { InvalidArgumentError, Option, type Command } from 'commander';
import { withProjectionReplay } from '../composition';
import type { Config } from '../config';
import { isoTime } from './arguments';
import { DeltabrokerError } from '../errors';
import { createToolLogger } from '../logger';
import type { ReplayFrom, TargetChoice } from '../replay';
import { progressReporter, registerVerifyCommand, type WithReplay } from './verify';

/**
 * Runs `work` with the replay port opened through the composition root, as an operator tool: the store and write
 * log of a running service on the same data directory, or the engines started for this run when none runs.
 * Ctrl-C interrupts the work between batches.
 */
export const withReplay: WithReplay = async (config, work) => {
  const controller = new AbortController();
  const interrupt = (): void => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\ninterrupting after the current batch; run the same command again to resume (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', interrupt);
  try {
    return await withProjectionReplay(config, createToolLogger(), (replay) => work(replay, controller.signal));
  } finally {
    process.off('SIGINT', interrupt);
  }
};

function offsetArgument(value: string): bigint {
  if (!/^[0-9]{1,19}$/.test(value)) throw new InvalidArgumentError('must be an offset (a whole number, 0 or more)');
  return BigInt(value);
}

interface ReplayCommandOptions {
  entity: string;
  tenant: string;
  target: TargetChoice;
  fromBeginning?: boolean;
  fromOffset?: bigint;
  fromTime?: number;
  dryRun?: boolean;
}

function startOf(o: ReplayCommandOptions): ReplayFrom {
  const chosen = [o.fromBeginning, o.fromOffset, o.fromTime].filter((v) => v !== undefined).length;
  if (chosen > 1) throw new InvalidArgumentError('give one of --from-beginning, --from-offset, --from-time');
  if (o.fromOffset !== undefined) return { kind: 'offset', offset: o.fromOffset };
  if (o.fromTime !== undefined) return { kind: 'time', timestamp: o.fromTime };
  return { kind: 'beginning' };
}

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** `replay` and `verify`. */
export function registerReplayCommands(program: Command, config: () => Config): void {
  program
    .command('replay')
    .description("rebuild an entity's projections from its persistence topic into shadows while the live ones serve, then swap them in")
    .requiredOption('--entity <name>', 'the entity')
    .option('--tenant <tenant>', 'the tenant', 'acme')
    .addOption(new Option('--target <target>', 'which projections').choices(['postgres', 'search', 'all']).default('all'))
    .option('--from-beginning', 'replay the whole topic into an empty shadow (the default)')
    .option('--from-offset <n>', 'copy the live rows, then re-apply every partition from offset n', offsetArgument)
    .option('--from-time <iso>', 'copy the live rows, then re-apply what was logged from this time on', isoTime)
    .option('--dry-run', 'report what would be done (topics, partitions, events, tables) and write nothing')
    .action(async (o: ReplayCommandOptions) => {
      const from = startOf(o);
      await withReplay(config(), async (replay, signal) => {
        const request = { tenant: o.tenant, entity: o.entity, target: o.target, from };
        if (o.dryRun) return print({ dryRun: true, ...(await replay.plan(request)) });
        const reporter = progressReporter();
        try {
          const result = await replay.rebuild(request, { progress: reporter.progress, signal });
          reporter.finish();
          print(result);
        } catch (error) {
          reporter.finish();
          if (signal.aborted)
            throw new DeltabrokerError('DB_CONFLICT', 'replay interrupted; its shadow is kept: run the same command again to resume', {
              rule: 'interrupted',
              stage: 'replay',
            });
          throw error;
        }
      });
    });

  registerVerifyCommand(program, config, withReplay);
}
