import { assertMayPerform } from '../../src/tenant';
import type { BatchActors } from '../batch-actors';
import { required } from '../context';
import { STAGES } from '../../src/log/topology';
import { stage } from './stage-operator';

/**
 * Stage 5: the actor is proven (the service's seal, or the caller's JWT in the record; verified for the batch
 * beforehand), and some role of the proven actor may do this operation on this entity. Roles a delta merely
 * claims count for nothing.
 */
export const checkPermission = (actors: BatchActors) =>
  stage(STAGES.permission, (ctx) => {
    const actor = actors.of(ctx);
    assertMayPerform(required(ctx, 'config'), actor.roles, ctx.delta.operation);
    ctx.actor = actor;
  });
