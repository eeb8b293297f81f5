import type { BrokerContext } from '../broker';
import type { ClientSession } from '../server/session';

/**
 * Feeds one client token to the connection's exchange; on success the session takes the principal, on
 * failure it is marked to close after the answer. Used by SaslAuthenticate and by the bare tokens that
 * follow a SaslHandshake v0.
 */
export function saslStep(broker: BrokerContext, session: ClientSession, token: Buffer): { reply: Buffer } | { failed: string } {
  const exchange = session.sasl!;
  const outcome = exchange.step(token);
  if ('failed' in outcome) {
    session.sasl = undefined;
    session.closeAfterReply = outcome.failed;
    broker.logger.warn({ remote: session.remote, mechanism: exchange.mechanism }, 'SASL authentication failed');
    return outcome;
  }
  if (outcome.principal) {
    session.principal = outcome.principal;
    session.sasl = undefined;
    broker.logger.debug({ remote: session.remote, user: outcome.principal.name, mechanism: exchange.mechanism }, 'SASL authenticated');
  }
  return { reply: outcome.reply };
}
