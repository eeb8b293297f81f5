import { assertMayPerform } from '../../src/tenant';
import type { ActorProofVerifier } from '../actor-proof';
import { required, STAGES } from '../context';
import { stage } from './stage-operator';

/**
 * Stage 5: the actor is proven (the service's seal, or the caller's JWT in the record), and some role of the
 * proven actor may do this operation on this entity. Roles a delta merely claims count for nothing.
 */
export const checkPermission = (actors: ActorProofVerifier) =>
  stage(STAGES.permission, async (ctx) => {
    const actor = await actors.prove(ctx);
    assertMayPerform(required(ctx, 'config'), actor.roles, ctx.delta.operation);
    ctx.actor = actor;
    return ctx;
  });
