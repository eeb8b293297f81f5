import { DeltabrokerError } from '../errors';
import { STAGES } from '../log/topology/stages';
import type { EntityConfig } from './entity-config';

/** The record key a payload names: its key field values, joined with ':' for composite keys. */
export function recordKeyOf(config: EntityConfig, fields: Readonly<Record<string, unknown>>): string | undefined {
  const parts = config.key.map((k) => fields[k]);
  if (parts.some((p) => p === undefined || p === null)) return undefined;
  return parts.map(String).join(':');
}

/**
 * The refusal of a delta, read or search naming an entity its tenant has not configured: stage 1's refusal,
 * answered the same whether the pipeline or an HTTP service finds it first.
 */
export const unknownEntity = (tenant: string, entity: string, stage: string = STAGES.entityConfig): DeltabrokerError =>
  new DeltabrokerError('DB_NOT_FOUND', `tenant '${tenant}' has no entity '${entity.slice(0, 64)}'`, {
    field: 'dispatch.entity',
    rule: 'configured-entity',
    stage,
  });
