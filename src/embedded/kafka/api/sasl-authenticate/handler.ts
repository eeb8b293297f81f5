import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { SaslAuthenticateRequest, SaslAuthenticateResponse } from './codec';
import { saslStep } from '../../security/sasl-step';

/** One token of the exchange SaslHandshake v1 began. A failure is answered, then the connection closes (as in Kafka). */
export const handleSaslAuthenticate: ApiHandler<SaslAuthenticateRequest, SaslAuthenticateResponse> = (broker, req, ctx) => {
  const answer = (errorCode: number, errorMessage: string | null, authBytes: Buffer = Buffer.alloc(0)): SaslAuthenticateResponse => ({
    errorCode,
    errorMessage,
    authBytes,
    sessionLifetimeMs: 0,
  });
  const exchange = ctx.session.sasl;
  if (!exchange || exchange.rawTokens) {
    ctx.session.closeAfterReply = 'SaslAuthenticate without a SaslHandshake v1';
    return answer(ErrorCode.ILLEGAL_SASL_STATE, 'SaslAuthenticate needs a SaslHandshake v1 first');
  }
  const outcome = saslStep(broker, ctx.session, req.authBytes);
  if ('failed' in outcome) return answer(ErrorCode.SASL_AUTHENTICATION_FAILED, outcome.failed);
  return answer(ErrorCode.NONE, null, outcome.reply);
};
