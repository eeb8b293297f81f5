/**
 * The search port on Elasticsearch (`@elastic/elasticsearch`; no other module imports it). The adapter itself
 * is the shared core in `../elastic-family/`; this file only carries its REST calls over the Elastic client.
 */
import { Client, errors } from '@elastic/elasticsearch';
import { DeltabrokerError } from '../../errors';
import { createElasticFamilySearchIndex, type ElasticFamilyOptions } from '../elastic-family/elastic-family-search-index';
import { EngineResponseError, type EngineTransport } from '../elastic-family/engine-transport';
import type { SearchIndex } from '../search-port';

export type { ElasticFamilyOptions as ElasticsearchSearchOptions } from '../elastic-family/elastic-family-search-index';

export interface ElasticsearchConnection {
  node: string | string[];
  username?: string;
  password?: string;
  apiKey?: string;
  /** SHA-256 fingerprint of the cluster's CA, for self-signed TLS. */
  caFingerprint?: string;
  requestTimeoutMs?: number;
}

function transportOver(client: Client, closeClient: boolean): EngineTransport {
  return {
    product: 'Elasticsearch',
    async request<T>(request: Parameters<EngineTransport['request']>[0]) {
      try {
        const result = await client.transport.request<T>(
          {
            method: request.method,
            path: request.path,
            ...(request.query === undefined ? {} : { querystring: request.query }),
            ...(request.body === undefined ? {} : { body: request.body as Record<string, unknown> }),
            ...(request.ndjson === undefined ? {} : { bulkBody: request.ndjson as Record<string, unknown>[] }),
          },
          { meta: true, ...(request.timeoutMs === undefined ? {} : { requestTimeout: request.timeoutMs }) },
        );
        return { status: result.statusCode ?? 200, body: result.body };
      } catch (error) {
        if (error instanceof errors.ResponseError) throw new EngineResponseError('Elasticsearch', error.meta.statusCode ?? 500, error.body);
        if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) {
          throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `Elasticsearch is not reachable: ${error.message}`, { stage: 'search' }, { cause: error });
        }
        throw error;
      }
    },
    async close() {
      if (closeClient) await client.close();
    },
  };
}

export function createElasticsearchSearchIndex(client: Client, options: ElasticFamilyOptions = {}, closeClient = false): SearchIndex {
  return createElasticFamilySearchIndex(transportOver(client, closeClient), options);
}

/** Connects to a cluster (checking that it answers) and returns the adapter; `close()` closes the connection. */
export async function openElasticsearchSearchIndex(connection: ElasticsearchConnection, options: ElasticFamilyOptions = {}): Promise<SearchIndex> {
  const auth =
    connection.apiKey !== undefined
      ? { apiKey: connection.apiKey }
      : connection.username !== undefined
        ? { username: connection.username, password: connection.password ?? '' }
        : undefined;
  const client = new Client({
    node: connection.node,
    ...(auth === undefined ? {} : { auth }),
    ...(connection.caFingerprint === undefined ? {} : { caFingerprint: connection.caFingerprint }),
    requestTimeout: connection.requestTimeoutMs ?? 30_000,
  });
  const transport = transportOver(client, true);
  try {
    // Not `GET /`: an Elasticsearch without its rest-root module (as built from Maven jars) has no handler there.
    await transport.request({ method: 'GET', path: '/_cluster/health' });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error instanceof EngineResponseError
      ? new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `Elasticsearch answered ${error.status} at startup`, { stage: 'startup' }, { cause: error })
      : error;
  }
  return createElasticFamilySearchIndex(transport, options);
}
