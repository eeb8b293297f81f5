/**
 * What the broker knows about one client connection. Every request of the connection sees it in its
 * context, so state that outlives a request (the software a client named in ApiVersions; later the
 * authenticated principal) has one home.
 */
export interface ClientSession {
  /** The peer's address, as DescribeGroups reports a member's host. */
  readonly remoteHost: string;
  /** `host:port`, for logs. */
  readonly remote: string;
  /** Name and version the client sent in ApiVersions v3+ (KIP-511). */
  clientSoftware?: { name: string; version: string };
}

export function sessionFor(remoteAddress: string | undefined, remotePort: number | undefined): ClientSession {
  const remoteHost = remoteAddress ?? '';
  return { remoteHost, remote: `${remoteAddress ?? '?'}:${remotePort ?? '?'}` };
}
