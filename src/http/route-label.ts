import type { FastifyRequest } from 'fastify';

/**
 * How the access log and the HTTP metrics name a request's route: its template (`/deltas/:id`), never the
 * concrete URL (unbounded label values), and `unmatched` for a request no route matched.
 */
export const routeLabel = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';
