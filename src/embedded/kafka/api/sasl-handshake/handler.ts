import { ErrorCode } from '../../protocol/errors';
import { SASL_MECHANISMS, SaslExchange, type SaslMechanism } from '../../security/sasl';
import type { ApiHandler } from '../types';
import type { SaslHandshakeRequest, SaslHandshakeResponse } from './codec';

/** Chooses the connection's mechanism. A second handshake, or one after authentication, is ILLEGAL_SASL_STATE. */
export const handleSaslHandshake: ApiHandler<SaslHandshakeRequest, SaslHandshakeResponse> = (broker, req, ctx) => {
  const users = broker.saslUsers;
  const mechanisms = users ? SASL_MECHANISMS : [];
  if (ctx.session.sasl || ctx.session.principal.authenticated) {
    ctx.session.closeAfterReply = 'SaslHandshake repeated';
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
  }
  if (!users || !(SASL_MECHANISMS as readonly string[]).includes(req.mechanism)) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
  ctx.session.sasl = new SaslExchange(req.mechanism as SaslMechanism, users, ctx.apiVersion);
  return { errorCode: ErrorCode.NONE, mechanisms };
};
