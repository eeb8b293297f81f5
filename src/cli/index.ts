import { Command } from 'commander';
import { positiveInt } from './arguments';
import { loadConfig, type Config } from '../config';
import { isDeltabrokerError } from '../errors';
import { createToolLogger } from '../logger';
import { registerEntitiesCommands } from './entities';
import { registerKeysCommands } from './keys';
import { registerPsqlCommand } from './psql';
import { registerRecoverCommand } from './recover';
import { registerReplayCommands } from './replay';
import { registerRejectionsCommands } from './rejections';
import { serve } from './serve';
import { registerStackCommands } from './stack';
import { registerSubjectsCommands } from './subjects';
import { registerTopicsCommands } from './topics';
import { mintToken } from './token';

/** The `deltabroker` command. Every subcommand reads the same configuration as the service. */
export function buildCli(config: () => Config): Command {
  const program = new Command('deltabroker').description('encryption dispatch and event-sourced storage broker').showHelpAfterError();

  program
    .command('serve')
    .description('start the service on its configured (by default embedded) engines')
    .action(async () => serve(config()));

  program
    .command('token')
    .description('print a token signed by the development issuer (only when the dev issuer is enabled)')
    .requiredOption('--sub <user>', 'the user (JWT subject)')
    .requiredOption('--tenant <tenant>', 'the tenant')
    .option('--roles <roles>', 'comma-separated roles', 'admin')
    .option('--ttl <seconds>', 'lifetime in seconds', positiveInt, 3600)
    .action(async (options: { sub: string; tenant: string; roles: string; ttl: number }) => {
      process.stdout.write(`${await mintToken(config(), options)}\n`);
    });

  registerKeysCommands(program, config);
  registerTopicsCommands(program, config);
  registerRejectionsCommands(program, config);
  registerEntitiesCommands(program, config);
  registerReplayCommands(program, config);
  registerRecoverCommand(program, config);
  registerSubjectsCommands(program, config);
  registerPsqlCommand(program, config);
  registerStackCommands(program, config);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli(() => loadConfig()).parseAsync(argv, { from: 'user' });
  } catch (error) {
    const message = isDeltabrokerError(error) ? `${error.code}: ${error.message}` : (error as Error).message;
    createToolLogger('info').error({ err: isDeltabrokerError(error) ? undefined : error }, message);
    process.exitCode = 1;
  }
}
