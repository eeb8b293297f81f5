import { DeltabrokerError, isDeltabrokerError } from '../../src/errors';
import type { EntityConfigSource } from '../../src/tenant';
import { STAGES } from '../context';
import { stage } from './stage-operator';

/** Stage 1: look up the entity configuration from the tenant API. */
export const lookupEntityConfig = (source: EntityConfigSource) =>
  stage(STAGES.entityConfig, async (ctx) => {
    const { tenant, entity } = ctx.delta;
    let config;
    try {
      config = await source.get(tenant, entity);
    } catch (cause) {
      // A configuration that maps onto another's names is a verdict; an API that does not answer is retried.
      if (isDeltabrokerError(cause) && !cause.retriable) throw cause;
      throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'the tenant API did not answer', { field: 'dispatch.entity', stage: STAGES.entityConfig }, { cause });
    }
    if (!config) {
      throw new DeltabrokerError('DB_NOT_FOUND', `tenant '${tenant}' has no entity '${entity.slice(0, 64)}'`, {
        field: 'dispatch.entity',
        rule: 'configured-entity',
      });
    }
    return { ...ctx, config };
  });
