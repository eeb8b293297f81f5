import { isDeltabrokerError, type DeltabrokerError } from '../src/errors';
import type { Actor, DeltaEnvelope } from '../src/log';
import type { ActorProofVerifier } from '../src/auth/actor-proof';
import type { DeltaContext } from './context';

/**
 * The proven actor of each delta of one batch, established before the batch is decided (proofs are verified
 * concurrently; JWT verification is asynchronous), so stage 5 is a synchronous look-up. A delta without valid
 * proof holds its refusal; a verifier that cannot answer (a JWKS endpoint down) fails the batch, which is retried.
 */
export class BatchActors {
  private constructor(private readonly proven: ReadonlyMap<DeltaEnvelope, Actor | DeltabrokerError>) {}

  static async prove(verifier: ActorProofVerifier, ctxs: readonly DeltaContext[]): Promise<BatchActors> {
    const proven = new Map<DeltaEnvelope, Actor | DeltabrokerError>();
    await Promise.all(
      ctxs.map(async (ctx) => {
        try {
          proven.set(ctx.delta, await verifier.prove(ctx));
        } catch (error) {
          if (!isDeltabrokerError(error) || error.retriable) throw error;
          proven.set(ctx.delta, error);
        }
      }),
    );
    return new BatchActors(proven);
  }

  /** The delta's proven actor; throws its refusal when it has no valid proof. */
  of(ctx: DeltaContext): Actor {
    const actor = this.proven.get(ctx.delta);
    if (actor === undefined) throw new Error('pipeline: a delta that is not one of the batch’s reached stage 5');
    if (!('user' in actor)) throw actor;
    return actor;
  }
}
