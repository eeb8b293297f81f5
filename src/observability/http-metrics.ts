import type { FastifyInstance } from 'fastify';
import { routeLabel } from '../http/route-label';
import type { ServiceMetrics } from './metrics';

/** Counts and times every HTTP answer, refusals and unknown routes included. */
export function instrumentHttp(app: FastifyInstance, metrics: ServiceMetrics): void {
  // A callback hook: an async one costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { route: routeLabel(request), method: request.method, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
