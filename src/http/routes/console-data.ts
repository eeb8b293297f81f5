import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../../auth/operator';
import type { RecordHistoryService } from '../../broker/record-history';
import type { TenantOverviewService } from '../../broker/tenant-overview';
import { DeltabrokerError } from '../../errors';

const NAME = /^[A-Za-z0-9_.:-]{1,256}$/;

/**
 * JSON the console needs that no other route gives, for operators of the caller's tenant like the other /admin
 * routes: GET /admin/overview, accepted and refused deltas per entity; GET /admin/entities, the entity
 * configurations (as `deltabroker entities list` reads them); GET /admin/entities/:entity/records/:key/history, a
 * record's events from its persistence topic.
 */
export function registerConsoleDataRoutes(app: FastifyInstance, overview: TenantOverviewService, history: RecordHistoryService): void {
  app.get('/admin/overview', async (request) => {
    const { tenant } = requireOperator(request.principal, 'the overview');
    return overview.counts(tenant);
  });

  app.get('/admin/entities', async (request) => {
    const { tenant } = requireOperator(request.principal, 'entity configurations');
    return overview.configurations(tenant);
  });

  app.get<{ Params: { entity: string; key: string } }>('/admin/entities/:entity/records/:key/history', async (request) => {
    const { tenant } = requireOperator(request.principal, 'a record history');
    const { entity, key } = request.params;
    for (const [field, value] of [
      ['entity', entity],
      ['key', key],
    ] as const) {
      if (!NAME.test(value))
        throw new DeltabrokerError('DB_VALIDATION', `${field} is 1-256 letters, digits, . _ : -`, { field, rule: 'pattern', stage: 'history' });
    }
    return { events: await history.history(tenant, entity, key) };
  });
}
