import { applyWriteRestrictions } from '../../src/tenant';
import { required } from '../context';
import { STAGES } from '../../src/log/topology';
import { stage } from './stage-operator';

/**
 * Stage 6: fields the proven actor (stage 5) may not write are stripped or refused, as the entity's role
 * configuration says (`writeDenied: strip | refuse`). Key fields always pass. The roles an envelope claims
 * count for nothing here either.
 */
export const filterPermittedFields = () =>
  stage(STAGES.permissionFilter, (ctx) => {
    const filtered = applyWriteRestrictions(required(ctx, 'config'), required(ctx, 'actor').roles, ctx.delta.operation, required(ctx, 'fields'));
    ctx.fields = filtered.payload;
    ctx.stripped = filtered.stripped;
  });
