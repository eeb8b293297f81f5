/** A client on `@elastic/elasticsearch-mock` that records every request the adapter sends. */
import { Client, errors } from '@elastic/elasticsearch';
import Mock from '@elastic/elasticsearch-mock';

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  querystring: Record<string, unknown>;
}

export interface MockCluster {
  client: Client;
  mock: Mock;
  requests: RecordedRequest[];
}

export function mockCluster(): MockCluster {
  const mock = new Mock();
  const client = new Client({ node: 'http://localhost:9200', Connection: mock.getConnection(), maxRetries: 0 });
  const requests: RecordedRequest[] = [];
  return { client, mock, requests };
}

/** Registers a route that records the request and answers with `answer(request)`. */
export function route(cluster: MockCluster, method: string, path: string, answer: (request: RecordedRequest) => unknown): void {
  cluster.mock.add({ method, path }, (params) => {
    const request = params as unknown as RecordedRequest;
    cluster.requests.push(request);
    return answer(request) as never;
  });
}

export function engineError(statusCode: number, type: string, reason = type): errors.ResponseError {
  return new errors.ResponseError({
    body: { error: { type, reason, root_cause: [{ type, reason }] }, status: statusCode },
    statusCode,
    headers: {},
    warnings: null,
    meta: {} as never,
  });
}
