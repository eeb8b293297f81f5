/** One malformed HTTP request of the bad-input corpus. */
export interface HttpCase {
  category: string;
  /** What was broken, for the report when the service answers it wrongly. */
  note: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** A well-formed query with hostile content may be answered (200) instead of refused; everything else must be refused. */
  mayBeAnswered?: boolean;
  /** Refused by Node's HTTP parser before the application sees it (431): its body is fastify's, not problem+json. */
  transportRefusal?: boolean;
}

/** Where the corpus sends its requests, and the credentials the well-formed parts of a case use. */
export interface CorpusContext {
  adminToken: string;
  writerToken: string;
  readerToken: string;
  /** An admin of another tenant (`acme_merchant`, the squatter), which has no entity of its own here. */
  otherTenantToken: string;
}

export const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

export const JSON_HEADERS = { 'content-type': 'application/json' };
