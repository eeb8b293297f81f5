import path from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { checkoutRoot } from '../../src/stack/engine-cache';

/** A benchmarked service: a temp data directory, free ports, the shipped entities, a benchmark database; `env` on top. */
export const benchServiceConfig = (dataDir: string, databaseUrl: string, env: Record<string, string> = {}): Config =>
  loadConfig({
    DELTABROKER_DATA_DIR: dataDir,
    DELTABROKER_HTTP_PORT: '0',
    DELTABROKER_KAFKA_PORT: '0',
    DELTABROKER_REGISTRY_PORT: '0',
    DELTABROKER_ENTITIES_DIR: path.join(checkoutRoot(), 'config', 'entities'),
    DATABASE_URL: databaseUrl,
    ...env,
  });
