import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The test run's PostgreSQL server: the embedded one global-setup.js starts, or TEST_DATABASE_URL when given. */
function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (its global setup starts a PostgreSQL server)');
  return url;
}

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one suite, so suites never see each other's rows. */
export async function createFreshDatabase(prefix = 'dbt'): Promise<FreshDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
