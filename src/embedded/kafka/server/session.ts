import { ANONYMOUS, type KafkaPrincipal } from '../security/authorizer';
import type { SaslExchange } from '../security/sasl';

/**
 * What the broker knows about one client connection. Every request of the connection sees it in its
 * context, so state that outlives a request (the software a client named in ApiVersions, the SASL exchange
 * and the authenticated principal) has one home.
 */
export interface ClientSession {
  /** The peer's address, as DescribeGroups reports a member's host. */
  readonly remoteHost: string;
  /** `host:port`, for logs. */
  readonly remote: string;
  /** Name and version the client sent in ApiVersions v3+ (KIP-511). */
  clientSoftware?: { name: string; version: string };
  /** ANONYMOUS until SASL authentication succeeds. */
  principal: KafkaPrincipal;
  /** Set by SaslHandshake, until the exchange completes. */
  sasl?: SaslExchange;
  /** Set when the answer being sent is the connection's last (a failed authentication). */
  closeAfterReply?: string;
}

export function sessionFor(remoteAddress: string | undefined, remotePort: number | undefined): ClientSession {
  const remoteHost = remoteAddress ?? '';
  return { remoteHost, remote: `${remoteAddress ?? '?'}:${remotePort ?? '?'}`, principal: ANONYMOUS };
}
