import { applyWriteRestrictions } from '../../src/tenant';
import { required } from '../context';
import { STAGES } from '../../src/log/topology';
import { stage } from './stage-operator';

/**
 * Stage 6: fields the actor may not write are stripped or refused, as the entity's role configuration says
 * (`writeDenied: strip | refuse`). Key fields always pass.
 */
export const filterPermittedFields = () =>
  stage(STAGES.permissionFilter, (ctx) => {
    const filtered = applyWriteRestrictions(required(ctx, 'config'), ctx.delta.actor.roles, ctx.delta.operation, required(ctx, 'fields'));
    return { ...ctx, fields: filtered.payload, stripped: filtered.stripped };
  });
