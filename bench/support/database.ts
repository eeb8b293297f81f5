import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the Postgres server named by BENCH_PG_ADMIN_URL, else TEST_DATABASE_URL, else the local
 * test server (postgres://postgres@127.0.0.1:5432/postgres); dropped afterwards. Benchmarks measure a server,
 * never the embedded PGlite.
 */
export async function createBenchDatabase(prefix: string): Promise<BenchDatabase> {
  const admin = process.env.BENCH_PG_ADMIN_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
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
