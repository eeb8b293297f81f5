import { unknownEntity } from '../../src/tenant';
import type { BatchConfigs } from '../batch-configs';
import { STAGES } from '../../src/log/topology';
import { stage } from './stage-operator';

/** Stage 1: look up the entity configuration from the tenant API (fetched for the whole batch beforehand). */
export const lookupEntityConfig = (configs: BatchConfigs) =>
  stage(STAGES.entityConfig, (ctx) => {
    const { tenant, entity } = ctx.delta;
    const config = configs.get(tenant, entity);
    if (!config) throw unknownEntity(tenant, entity);
    ctx.config = config;
  });
