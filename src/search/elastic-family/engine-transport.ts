/**
 * What the shared Elasticsearch/OpenSearch core needs of an engine client: one REST call. The two engines speak
 * the same REST API for everything this adapter sends, so the core builds paths and bodies and reads answers,
 * and each client adapter (`../elasticsearch/`, `../opensearch/`) only carries requests and maps its client's
 * failures onto `EngineResponseError` (the engine answered non-2xx) or a typed DB_DEPENDENCY_UNAVAILABLE.
 */

export type EngineProduct = 'Elasticsearch' | 'OpenSearch';

export interface EngineRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  /** A `_bulk` body: one JSON line per entry. */
  ndjson?: readonly unknown[];
  /** Overrides the client's request timeout (long copies wait on the server, see engine-tasks.ts). */
  timeoutMs?: number;
}

export interface EngineAnswer<T> {
  status: number;
  body: T;
}

export interface EngineTransport {
  readonly product: EngineProduct;
  request<T>(request: EngineRequest): Promise<EngineAnswer<T>>;
  close(): Promise<void>;
}

/** The engine answered with a status outside 2xx; `body` is its JSON error, as sent. */
export class EngineResponseError extends Error {
  override readonly name = 'EngineResponseError';

  constructor(
    readonly product: EngineProduct,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${product} answered ${status}`);
  }
}

/** Index names in a path: each is URL-encoded, several joined by commas. */
export const pathOf = (...segments: (string | readonly string[])[]): string =>
  `/${segments.map((s) => (typeof s === 'string' ? encodeURIComponent(s) : s.map(encodeURIComponent).join(','))).join('/')}`;
