import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import { runningServerUrl } from '../store/embedded-postgres/embedded-postgres';

/** The connection string of the service's database: DATABASE_URL, else the running embedded server's. */
export function serviceDatabaseUrl(config: Config): string {
  const url = config.databaseUrl ?? runningServerUrl(config.dataDir);
  if (url === undefined) {
    throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `no embedded PostgreSQL server runs on ${config.dataDir}; start the service (npm start) first`, {
      field: 'DELTABROKER_DATA_DIR',
      stage: 'cli',
    });
  }
  return url;
}

/** `psql`: an interactive psql on the service's database (the password goes through the environment, not argv). */
export function registerPsqlCommand(program: Command, config: () => Config): void {
  program
    .command('psql')
    .description("open psql on the service's PostgreSQL database (the embedded server of the data directory, or DATABASE_URL)")
    .option('--print-url', 'print the connection string (password included) instead of starting psql')
    .argument('[psqlArgs...]', 'more arguments for psql, after --, e.g. -- -c "select 1"')
    .action(async (psqlArgs: string[], o: { printUrl?: boolean }) => {
      const url = new URL(serviceDatabaseUrl(config()));
      if (o.printUrl) return void process.stdout.write(`${url.toString()}\n`);
      const password = decodeURIComponent(url.password);
      url.password = '';
      await new Promise<void>((resolve, reject) => {
        const child = spawn('psql', [url.toString(), ...psqlArgs], { stdio: 'inherit', env: { ...process.env, ...(password && { PGPASSWORD: password }) } });
        child.once('error', (error: NodeJS.ErrnoException) =>
          reject(
            error.code === 'ENOENT'
              ? new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'psql is not installed: apt-get install postgresql-client', { stage: 'cli' })
              : error,
          ),
        );
        child.once('exit', (code) => {
          process.exitCode = code ?? 1;
          resolve();
        });
      });
    });
}
