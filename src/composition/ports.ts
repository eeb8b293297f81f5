/** The small openers: search index, entity configurations, master key, development issuer, keyring. */
import { loadDevIssuer, type DevIssuer } from '../auth/dev-issuer';
import type { Config } from '../config';
import type { Hsm } from '../crypto/hsm/hsm-port';
import { Keyring } from '../crypto/keyring';
import { MasterKey } from '../crypto/master-key';
import type { Logger } from '../logger';
import type { GuardedSearchWrites, SearchIndex, SearchWrites } from '../search';
import type * as ElasticsearchAdapter from '../search/elasticsearch/elasticsearch-search-index';
import type * as OpenSearchAdapter from '../search/opensearch/opensearch-search-index';
import { createPostgresSearchIndex } from '../search/postgres/postgres-search-index';
import type { SqlClient, SqlExecutor } from '../store/sql-client';
import { FileEntityConfigSource, HttpEntityConfigSource, type EntityConfigSource } from '../tenant';

export interface OpenedSearchIndex {
  index: SearchIndex;
  /** Its writes inside a transaction of the relational store, when it lives there (the Postgres adapter). */
  writesIn: ((tx: SqlExecutor) => SearchWrites) | undefined;
  /** The same writes as statements to run inside a larger one, when it lives there. */
  guardedWrites: GuardedSearchWrites | undefined;
}

/**
 * The search index: Elasticsearch or OpenSearch when configured, else the Postgres adapter on the relational store.
 * An engine's adapter is loaded only when it is configured: each client library adds 4-8 MiB of heap (and more of
 * compiled code) to a process that never calls it. With `require`, not `import()`: the service also runs from its
 * TypeScript under `node --require tsx/cjs` (the test suites), where a dynamic import goes to Node's ESM resolver,
 * which finds no `.ts` file behind an extensionless path.
 */
export async function openSearchIndex(config: Config, sql: SqlClient): Promise<OpenedSearchIndex> {
  if (config.search.elasticsearchUrl) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
    const { openElasticsearchSearchIndex } = require('../search/elasticsearch/elasticsearch-search-index') as typeof ElasticsearchAdapter;
    return { index: await openElasticsearchSearchIndex({ node: config.search.elasticsearchUrl }), writesIn: undefined, guardedWrites: undefined };
  }
  if (config.search.opensearchUrl) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
    const { openOpenSearchSearchIndex } = require('../search/opensearch/opensearch-search-index') as typeof OpenSearchAdapter;
    return { index: await openOpenSearchSearchIndex({ node: config.search.opensearchUrl }), writesIn: undefined, guardedWrites: undefined };
  }
  const index = createPostgresSearchIndex(sql);
  return { index, writesIn: (tx) => index.writeIn(tx), guardedWrites: index.guardedWrites };
}

export function openEntityConfigSource(config: Config, logger: Logger): EntityConfigSource {
  return config.entities.tenantApiUrl
    ? new HttpEntityConfigSource({ baseUrl: config.entities.tenantApiUrl, logger })
    : new FileEntityConfigSource({ directory: config.entities.directory, recheckMs: 1000 });
}

export function openMasterKey(config: Config): MasterKey {
  return config.crypto.masterKey ? MasterKey.fromBase64(config.crypto.masterKey) : MasterKey.loadOrCreate(config.dataDir);
}

export async function openDevIssuer(config: Config): Promise<DevIssuer | undefined> {
  return config.auth.devIssuer ? loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience) : undefined;
}

/** The keyring on the store, under the configured master key (and the HSM's keys, when there is one). */
export const openKeyring = (config: Config, sql: SqlClient, hsm: Hsm | undefined, logger: Logger): Keyring =>
  new Keyring(sql, openMasterKey(config), hsm, { rotateAfterEncryptions: config.crypto.rotateAfterEncryptions, logger });

/** Whether the search index lives in an engine of its own (Elasticsearch, OpenSearch) rather than on the relational store. */
export const searchEngineConfigured = (config: Config): boolean => Boolean(config.search.elasticsearchUrl || config.search.opensearchUrl);
