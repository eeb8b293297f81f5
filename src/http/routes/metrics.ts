import type { FastifyInstance } from 'fastify';
import { requireServiceRole, METRICS_ROLE, OPERATOR_ROLE } from '../../auth/roles';
import type { ServiceMetrics } from '../../observability';

/** Roles that may scrape: the metrics expose every tenant's topics and lag, so no tenant role may. */
export const METRICS_ROLES = [OPERATOR_ROLE, METRICS_ROLE] as const;

export interface MetricsRouteOptions {
  /** Serve without a token (for scrapers that cannot send one, on a network that is trusted). Default false. */
  readonly public?: boolean;
}

/** GET /metrics: the Prometheus text exposition; needs a Bearer token with role operator or metrics unless public. */
export function registerMetricsRoute(app: FastifyInstance, metrics: ServiceMetrics, options: MetricsRouteOptions = {}): void {
  const open = options.public === true;
  app.get('/metrics', { config: { public: open } }, async (request, reply) => {
    if (!open) requireServiceRole(request.principal, METRICS_ROLES, 'scraping metrics');
    return reply.type(metrics.contentType).send(await metrics.exposition());
  });
}
