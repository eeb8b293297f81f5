import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './metrics';

/** Routes are labelled by their template (`/deltas/:id`), never by the raw URL, so label values stay few. */
const UNMATCHED_ROUTE = 'unmatched';

/** Counts and times every HTTP answer, refusals and unknown routes included. */
export function instrumentHttp(app: FastifyInstance, metrics: ServiceMetrics): void {
  // A callback hook: an async one costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { route: request.routeOptions.url ?? UNMATCHED_ROUTE, method: request.method, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
