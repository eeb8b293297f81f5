import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { planReplay, rebuildProjections, type ReplayContext, type ReplayFrom, type TargetChoice } from '../../projections/replay';
import type { Config } from '../config';
import { isoTime } from './arguments';
import { startEmbeddedKafka } from '../embedded/kafka';
import { startEmbeddedRegistry } from '../embedded/registry';
import { DeltabrokerError, isDeltabrokerError } from '../errors';
import { loadSchemas } from '../log';
import { openKafkaWriteLog } from '../log/kafka';
import { createLogger } from '../logger';
import { openEntityConfigSource, openStore } from '../main';
import { progressReporter, registerVerifyCommand, type WithReplayContext } from './verify';

const useTheService = 'while the service runs, use its admin route (POST /admin/replay, POST /admin/verify)';

/**
 * Opens what a replay needs from configuration, the way the service does: the store, the write log (a Kafka
 * cluster, or the embedded broker and registry of the data directory on ephemeral ports), the entity
 * configuration. The embedded database and broker belong to one process: while a service holds them this
 * refuses with DB_CONFLICT and points at the admin route. Ctrl-C interrupts the work between batches.
 */
export const withReplayContext: WithReplayContext = async (config, work) => {
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const closers: (() => Promise<void>)[] = [];
  const held = (error: unknown, what: string): DeltabrokerError =>
    new DeltabrokerError('DB_CONFLICT', `${what} is in use by another process (${(error as Error).message}); ${useTheService}`, { rule: 'single-process', stage: 'replay' }, { cause: error });
  const controller = new AbortController();
  const interrupt = (): void => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\ninterrupting after the current batch; run the same command again to resume (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', interrupt);
  try {
    let sql;
    try {
      sql = await openStore(config, logger);
    } catch (error) {
      throw isDeltabrokerError(error) && error.code === 'DB_CONFLICT' ? new DeltabrokerError('DB_CONFLICT', `${error.message}; ${useTheService}`, error.details, { cause: error }) : error;
    }
    const store = sql;
    closers.push(() => store.close());
    let brokers = config.kafka.brokers;
    if (!brokers) {
      const kafka = await startEmbeddedKafka({ dataDir: path.join(config.dataDir, 'kafka'), port: 0, logger }).catch((e: unknown) => Promise.reject(held(e, 'the embedded broker')));
      closers.push(() => kafka.stop());
      brokers = kafka.brokers;
    }
    let registryUrl = config.registry.url;
    if (!registryUrl) {
      const registry = await startEmbeddedRegistry({ dataDir: path.join(config.dataDir, 'registry'), port: 0, logger }).catch((e: unknown) => Promise.reject(held(e, 'the embedded schema registry')));
      closers.push(() => registry.stop());
      registryUrl = registry.url;
    }
    const log = await openKafkaWriteLog({ brokers, registryUrl, logger, clientId: `deltabroker-replay-${config.datacenter}` });
    closers.push(() => log.close());
    const entities = openEntityConfigSource(config, logger);
    const ctx: ReplayContext = { log, schemas: loadSchemas(), entities, sql: store, logger, searchEngine: config.search.elasticsearchUrl ? 'elasticsearch' : 'postgres' };
    return await work(ctx, controller.signal);
  } finally {
    process.off('SIGINT', interrupt);
    for (const close of closers.reverse()) await close().catch((e: unknown) => logger.warn({ err: e }, 'closing failed'));
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
      await withReplayContext(config(), async (ctx, signal) => {
        const request = { tenant: o.tenant, entity: o.entity, target: o.target, from };
        if (o.dryRun) return print({ dryRun: true, ...(await planReplay(ctx, request)) });
        const reporter = progressReporter();
        try {
          const result = await rebuildProjections(ctx, request, { progress: reporter.progress, signal });
          reporter.finish();
          print(result);
        } catch (error) {
          reporter.finish();
          if (signal.aborted) throw new DeltabrokerError('DB_CONFLICT', 'replay interrupted; its shadow is kept: run the same command again to resume', { rule: 'interrupted', stage: 'replay' });
          throw error;
        }
      });
    });

  registerVerifyCommand(program, config, withReplayContext);
}
