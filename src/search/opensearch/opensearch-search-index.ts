/**
 * The search port on OpenSearch (`@opensearch-project/opensearch`; no other module imports it; the Elastic
 * client refuses any server that is not Elasticsearch). The adapter itself is the shared core in
 * `../elastic-family/`; this file only carries its REST calls over OpenSearch's client.
 */
import { Client, errors } from '@opensearch-project/opensearch';
import { DeltabrokerError } from '../../errors';
import { createElasticFamilySearchIndex, type ElasticFamilyOptions } from '../elastic-family/elastic-family-search-index';
import { EngineResponseError, type EngineTransport } from '../elastic-family/engine-transport';
import type { SearchIndex } from '../search-port';

export interface OpenSearchConnection {
  node: string | string[];
  username?: string;
  password?: string;
  requestTimeoutMs?: number;
}

function transportOver(client: Client): EngineTransport {
  return {
    product: 'OpenSearch',
    async request<T>(request: Parameters<EngineTransport['request']>[0]) {
      try {
        const result = await client.transport.request(
          {
            method: request.method,
            path: request.path,
            ...(request.query === undefined ? {} : { querystring: request.query }),
            ...(request.body === undefined ? {} : { body: request.body as Record<string, unknown> }),
            ...(request.ndjson === undefined ? {} : { bulkBody: request.ndjson as Record<string, unknown>[] }),
          },
          request.timeoutMs === undefined ? {} : { requestTimeout: request.timeoutMs },
        );
        return { status: result.statusCode ?? 200, body: result.body as T };
      } catch (error) {
        if (error instanceof errors.ResponseError) throw new EngineResponseError('OpenSearch', error.statusCode ?? 500, error.body);
        if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) {
          throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `OpenSearch is not reachable: ${error.message}`, { stage: 'search' }, { cause: error });
        }
        throw error;
      }
    },
    async close() {
      await client.close();
    },
  };
}

/** Connects to a cluster (checking that it answers) and returns the adapter; `close()` closes the connection. */
export async function openOpenSearchSearchIndex(connection: OpenSearchConnection, options: ElasticFamilyOptions = {}): Promise<SearchIndex> {
  const client = new Client({
    node: connection.node,
    ...(connection.username === undefined ? {} : { auth: { username: connection.username, password: connection.password ?? '' } }),
    requestTimeout: connection.requestTimeoutMs ?? 30_000,
  });
  const transport = transportOver(client);
  try {
    await transport.request({ method: 'GET', path: '/_cluster/health' });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error instanceof EngineResponseError
      ? new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `OpenSearch answered ${error.status} at startup`, { stage: 'startup' }, { cause: error })
      : error;
  }
  return createElasticFamilySearchIndex(transport, options);
}
