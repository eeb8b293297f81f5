import { DeltabrokerError } from '../errors';
import type { Actor, DeltaEnvelope } from '../log';
import { DELTA_SEAL_HEADER, type DeltaSeal } from './delta-seal';
import type { TokenVerifier } from './principal';

/** The record header a Kafka producer puts its caller's token in: `authorization: Bearer <JWT>`. */
export const ACTOR_TOKEN_HEADER = 'authorization';

/** What a delta's actor is proven from: the delta and the headers and timestamp of the record that carried it. */
export interface ActorClaim {
  readonly delta: DeltaEnvelope;
  readonly record?: { readonly headers: Readonly<Record<string, string>>; readonly timestamp: number };
}

/**
 * Stage 5's port: who a delta's actor really is. A delta the service published for an HTTP caller it
 * authenticated is trusted; any other delta must carry proof (the caller's JWT), or it is refused with the
 * reason. Throws a DeltabrokerError refusal when there is no valid proof.
 */
export interface ActorProofVerifier {
  prove(claim: ActorClaim): Promise<Actor>;
}

const refusal = (code: 'DB_UNAUTHENTICATED' | 'DB_FORBIDDEN', message: string, rule: string, cause?: unknown): DeltabrokerError =>
  new DeltabrokerError(code, message, { field: `header:${ACTOR_TOKEN_HEADER}`, rule }, { cause });

/**
 * Proves a delta's actor: the service's seal (its own HTTP path, whose caller it verified), else the JWT in the
 * record's `authorization` header, verified at the record's timestamp (a token that expired since still proves a
 * delta produced while it was valid; one produced before `nbf` or after `exp` does not). The token decides the
 * actor: its subject must be the envelope's user, its tenant the delta's tenant, and its roles replace the
 * envelope's claimed ones.
 */
export function createActorProofVerifier(o: { seal: DeltaSeal; tokens: TokenVerifier }): ActorProofVerifier {
  return {
    async prove({ delta, record }) {
      const headers = record?.headers ?? {};
      if (o.seal.verify(delta, headers[DELTA_SEAL_HEADER])) return delta.actor;
      const header = headers[ACTOR_TOKEN_HEADER];
      if (header === undefined) {
        throw refusal(
          'DB_UNAUTHENTICATED',
          `a delta from a Kafka producer must prove its actor: put the caller's JWT in a '${ACTOR_TOKEN_HEADER}: Bearer <token>' record header`,
          'actor-proof',
        );
      }
      const token = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(header.trim())?.[1];
      if (!token) throw refusal('DB_UNAUTHENTICATED', `the '${ACTOR_TOKEN_HEADER}' header must be 'Bearer <JWT>'`, 'bearer-jwt');
      let principal;
      try {
        principal = await o.tokens.verify(token, new Date(record!.timestamp));
      } catch (error) {
        const reason = error instanceof DeltabrokerError ? error.message : 'the token is not valid';
        throw refusal('DB_UNAUTHENTICATED', `the actor's token does not prove the delta (judged at the record's timestamp): ${reason}`, 'bearer-jwt', error);
      }
      if (principal.tenant !== delta.tenant)
        throw refusal('DB_FORBIDDEN', `the token is for tenant '${principal.tenant}', the delta for '${delta.tenant}'`, 'tenant');
      if (principal.user !== delta.actor.user)
        throw refusal('DB_UNAUTHENTICATED', `the delta's actor '${delta.actor.user}' is not the token's subject`, 'actor-proof');
      const actor: Actor = { user: principal.user, roles: [...principal.roles] };
      return actor;
    },
  };
}
