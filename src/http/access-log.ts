import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { routeLabel } from './route-label';

/**
 * One log line per request, at its completion, like an access log: the request id (the logger's binding),
 * method, URL, route template, status, duration and the client's address. Fastify's default is two lines per
 * request (incoming, then completed), each a write to the log; the incoming line told nothing the completed
 * line does not.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url,
      route: routeLabel(request),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      remoteAddress: request.ip,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
