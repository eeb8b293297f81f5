import { assertMayPerform } from '../../src/tenant';
import { required, STAGES } from '../context';
import { stage } from './stage-operator';

/** Stage 5: some role of the actor may do this operation on this entity. */
export const checkPermission = () =>
  stage(STAGES.permission, (ctx) => {
    assertMayPerform(required(ctx, 'config'), ctx.delta.actor.roles, ctx.delta.operation);
    return ctx;
  });
