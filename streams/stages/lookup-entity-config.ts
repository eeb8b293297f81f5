import { DeltabrokerError } from '../../src/errors';
import type { BatchConfigs } from '../batch-configs';
import { STAGES } from '../context';
import { stage } from './stage-operator';

/** Stage 1: look up the entity configuration from the tenant API (fetched for the whole batch beforehand). */
export const lookupEntityConfig = (configs: BatchConfigs) =>
  stage(STAGES.entityConfig, (ctx) => {
    const { tenant, entity } = ctx.delta;
    const config = configs.get(tenant, entity);
    if (!config) {
      throw new DeltabrokerError('DB_NOT_FOUND', `tenant '${tenant}' has no entity '${entity.slice(0, 64)}'`, {
        field: 'dispatch.entity',
        rule: 'configured-entity',
      });
    }
    return { ...ctx, config };
  });
