import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the PostgreSQL server named by BENCH_PG_ADMIN_URL (an admin connection string), dropped
 * afterwards. `npm run bench` starts an embedded server for the run and sets it.
 */
export async function createBenchDatabase(prefix: string): Promise<BenchDatabase> {
  const admin = process.env.BENCH_PG_ADMIN_URL;
  if (!admin)
    throw new Error('BENCH_PG_ADMIN_URL is not set: run benchmarks through `npm run bench` (`-- --only <name>` for one), which starts a PostgreSQL server');
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const run = async (text: string): Promise<void> => {
    const client = new Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
