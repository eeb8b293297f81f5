import type { FastifyInstance } from 'fastify';
import { DeltabrokerError } from '../../errors';
import type { ServiceMetrics } from '../../observability';

/** Roles that may scrape; `metrics` exists so a Prometheus token carries no other power. */
export const METRICS_ROLES = ['admin', 'metrics'] as const;

export interface MetricsRouteOptions {
  /** Serve without a token (for scrapers that cannot send one, on a network that is trusted). Default false. */
  readonly public?: boolean;
}

/** GET /metrics: the Prometheus text exposition; needs a Bearer token with role admin or metrics unless public. */
export function registerMetricsRoute(app: FastifyInstance, metrics: ServiceMetrics, options: MetricsRouteOptions = {}): void {
  const open = options.public === true;
  app.get('/metrics', { config: { public: open } }, async (request, reply) => {
    if (!open && !request.principal?.roles.some((r) => (METRICS_ROLES as readonly string[]).includes(r))) {
      throw new DeltabrokerError('DB_FORBIDDEN', `scraping metrics needs the role ${METRICS_ROLES.join(' or ')}`, { field: 'Authorization', rule: 'role', stage: 'auth' });
    }
    return reply.type(metrics.contentType).send(await metrics.exposition());
  });
}
