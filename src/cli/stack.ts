import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config';
import { readStack, stackDown, stackEnv, stackStatus, stackUp } from '../stack/stack';
import { positiveInt } from './arguments';

const shellExports = (env: Record<string, string>): string =>
  Object.entries(env)
    .map(([name, value]) => `export ${name}='${value.replace(/'/g, `'\\''`)}'\n`)
    .join('');

/**
 * `deltabroker stack up|env|status|down`: the production engines as local processes (Java and Maven needed), for
 * running one or several instances the way a cluster deployment does. `up` prints the settings for `npm start`.
 */
export function registerStackCommands(program: Command, config: () => Config): void {
  const stack = program.command('stack').description('run Kafka 4, a schema registry and PostgreSQL as local processes for instances to share');
  const dirOf = (options: { dir?: string }): string => path.resolve(options.dir ?? path.join(config().dataDir, 'stack'));
  stack
    .command('up')
    .description('start the engines and print the environment that points the service at them')
    .option('--dir <dir>', 'where the engines keep their data (default: <data dir>/stack)')
    .option('--kafka-nodes <n>', 'Kafka nodes (3 gives replication factor 3, min.insync.replicas 2)', positiveInt, 1)
    .action(async (options: { dir?: string; kafkaNodes: number }) => {
      const state = await stackUp({ dir: dirOf(options), kafkaNodes: options.kafkaNodes });
      process.stdout.write(shellExports(stackEnv(state)));
    });
  stack
    .command('env')
    .description('print the environment that points the service at the running stack')
    .option('--dir <dir>', 'the stack’s folder')
    .action((options: { dir?: string }) => {
      const state = readStack(dirOf(options));
      if (state === undefined) throw new Error(`no stack in ${dirOf(options)}: run \`deltabroker stack up\``);
      process.stdout.write(shellExports(stackEnv(state)));
    });
  stack
    .command('status')
    .description('each engine of the stack, its pid, whether it runs, and its address')
    .option('--dir <dir>', 'the stack’s folder')
    .action((options: { dir?: string }) => {
      const state = readStack(dirOf(options));
      process.stdout.write(`${JSON.stringify(state === undefined ? [] : stackStatus(state), null, 2)}\n`);
    });
  stack
    .command('down')
    .description('stop every engine of the stack (the next `up` starts them empty)')
    .option('--dir <dir>', 'the stack’s folder')
    .action(async (options: { dir?: string }) => stackDown(dirOf(options)));
}
