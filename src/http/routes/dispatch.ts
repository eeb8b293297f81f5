import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authorizeCryptoOperation, type CryptoOperation } from '../../auth/roles';
import type { Principal } from '../../auth/principal';
import type { EncryptionService } from '../../crypto/encryption-service';
import { parseEncoding } from '../../crypto/payload-encoding';
import { DeltabrokerError, isDeltabrokerError } from '../../errors';
import { parseBody } from '../body';

const OPERATIONS = ['encrypt', 'decrypt', 'rewrap', 'createSession'] as const satisfies readonly CryptoOperation[];

const DispatchBody = z.strictObject({
  dispatch: z.strictObject({
    operation: z.enum(OPERATIONS),
    method: z.string().min(1).max(64).optional(),
    encoding: z.string().optional(),
    sessionId: z.string().min(1).max(64).optional(),
    keyAlias: z.string().min(1).max(64).optional(),
    subject: z.string().min(1).max(64).optional(),
  }),
  payload: z.string().optional(),
});

type Dispatch = z.infer<typeof DispatchBody>;

/** POST /dispatch: the encryption dispatch of seed section 4.1, plus decrypt, rewrap and createSession. */
export function registerDispatchRoute(app: FastifyInstance, crypto: EncryptionService): void {
  app.post('/dispatch', async (request, reply) => {
    try {
      return await handleDispatch(request, reply, crypto);
    } catch (error) {
      // Refusals from the crypto core name their field and rule; the stage is this route's.
      if (isDeltabrokerError(error)) error.details.stage ??= 'dispatch';
      throw error;
    }
  });
}

async function handleDispatch(request: FastifyRequest, reply: FastifyReply, crypto: EncryptionService): Promise<FastifyReply> {
  const body = parseBody(DispatchBody, request.body, 'dispatch');
  const principal = request.principal as Principal;
  authorizeCryptoOperation(principal, body.dispatch.operation);
  const caller = { tenant: principal.tenant, user: principal.user };
  const { dispatch } = body;
  switch (dispatch.operation) {
    case 'encrypt': {
      const result = await crypto.encrypt(caller, {
        method: required(dispatch.method, 'dispatch.method'),
        encoding: parseEncoding(dispatch.encoding),
        payload: required(body.payload, 'payload'),
        ...(dispatch.sessionId !== undefined && { sessionId: dispatch.sessionId }),
        ...(dispatch.keyAlias !== undefined && { keyAlias: dispatch.keyAlias }),
        ...(dispatch.subject !== undefined && { subject: dispatch.subject }),
      });
      return reply.send(result);
    }
    case 'decrypt':
      noKeySelectors(dispatch);
      return reply.send(await crypto.decrypt(caller, required(body.payload, 'payload'), parseEncoding(dispatch.encoding), dispatch.method));
    case 'rewrap':
      noKeySelectors(dispatch);
      return reply.send(await crypto.rewrap(caller, required(body.payload, 'payload'), dispatch.method));
    case 'createSession':
      return reply.status(201).send(await crypto.createSession(caller, required(dispatch.method, 'dispatch.method')));
  }
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new DeltabrokerError('DB_VALIDATION', `${field} is required`, { field, rule: 'required', stage: 'dispatch' });
  return value;
}

/** Decrypt and rewrap read the key from the ciphertext itself; a key selector would be ignored, so refuse it. */
function noKeySelectors(dispatch: Dispatch['dispatch']): void {
  for (const field of ['sessionId', 'keyAlias', 'subject'] as const) {
    if (dispatch[field] !== undefined) {
      throw new DeltabrokerError('DB_VALIDATION', `dispatch.${field} is not used by ${dispatch.operation}: the ciphertext names its key`, {
        field: `dispatch.${field}`,
        rule: 'not-allowed',
        stage: 'dispatch',
      });
    }
  }
}
