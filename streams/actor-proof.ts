import type { Actor } from '../src/log';
import type { DeltaContext } from './context';

/**
 * Stage 5's port: who a delta's actor really is. A delta the service published for an HTTP caller it
 * authenticated is trusted; any other delta must carry proof (the caller's JWT), or it is refused with the
 * reason. Throws a DeltabrokerError refusal when there is no valid proof.
 */
export interface ActorProofVerifier {
  prove(ctx: DeltaContext): Promise<Actor>;
}
