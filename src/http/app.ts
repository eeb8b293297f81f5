import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { DeltabrokerError } from '../errors';
import type { Logger } from '../logger';
import type { Principal, TokenVerifier } from '../auth/principal';
import { AccessLog } from './access-log';
import { LingeringClose } from './lingering-close';
import { fromFrameworkError, httpStatusOf, toProblem } from './problem';
import { loneSurrogatePath, mayHoldLoneSurrogate } from '../text/well-formed';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Routes that need no token (health only). */
    public?: boolean;
  }
}

export interface HttpAppOptions {
  logger: Logger;
  verifier: TokenVerifier;
  bodyLimitBytes: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Node's limit on the request line and headers together (`--max-http-header-size`). */
const MAX_URL_BYTES = 16 * 1024;

/** The fastify application: Request-ID, Bearer authentication, problem+json errors. Routes are added by the caller. */
export function buildHttpApp(options: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    logController: new AccessLog({ requestIdLogLabel: 'requestId' }),
    return503OnClosing: true,
    // Above this fastify answers its own 414 before authentication; Node's 16 KiB header limit bounds URLs, so
    // every path parameter reaches the auth hook and the route's own problem+json refusal.
    routerOptions: { maxParamLength: MAX_URL_BYTES },
    clientErrorHandler: answerClientError,
  });

  // JSON only: any other media type is answered 415 rather than handed to a route as a string.
  app.removeContentTypeParser(['text/plain']);
  // Decoding the body as UTF-8 would turn invalid bytes into U+FFFD, silently changing what gets encrypted or
  // written; such a body is refused instead. Parsing is fastify's own (prototype-poisoning checks included).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isUtf8(body as Buffer)) {
      done(new DeltabrokerError('DB_BAD_REQUEST', 'the body is not valid UTF-8', { field: 'body', rule: 'utf8', stage: 'http' }), undefined);
      return;
    }
    const text = (body as Buffer).toString('utf8');
    parseJson(request, text, (error, parsed) => {
      // A "\ud800" escape parses, but would be stored or encrypted as U+FFFD: refused like invalid UTF-8.
      const at = error || !mayHoldLoneSurrogate(text) ? undefined : loneSurrogatePath(parsed, '');
      if (at !== undefined) {
        done(
          new DeltabrokerError('DB_VALIDATION', `${at || 'the body'} holds a lone UTF-16 surrogate, which no UTF-8 text can carry`, {
            field: at || 'body',
            rule: 'utf16',
            stage: 'http',
          }),
          undefined,
        );
        return;
      }
      done(error, parsed);
    });
  });

  // An answer that closes the connection before the body was read (413 on Content-Length) lingers, so the
  // client reads it rather than a reset.
  const lingering = new LingeringClose();
  app.addHook('onSend', (request, _reply, payload, done) => {
    lingering.watch(request.raw);
    done(null, payload);
  });
  app.addHook('preClose', (done) => {
    lingering.closeAll();
    done();
  });

  // Callback hooks: an async hook costs a promise per request, and these run on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Request-ID', request.id);
    if (request.routeOptions.config?.public) {
      done();
      return;
    }
    authenticate(request, options.verifier).then((principal) => {
      request.principal = principal;
      done();
    }, done);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const refusal = fromFrameworkError(error);
    const problem = toProblem(refusal, request.id, request.url);
    if (problem.status >= 500) request.log.error({ err: error, code: refusal.code }, 'request failed');
    else request.log.info({ code: refusal.code, field: refusal.details.field, stage: refusal.details.stage }, 'request refused');
    if (refusal.code === 'DB_UNAUTHENTICATED') reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    return reply.status(problem.status).type('application/problem+json').send(problem);
  });

  app.setNotFoundHandler(async (request) => {
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0) {
      throw new DeltabrokerError('DB_METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}`, {
        field: 'method',
        rule: 'allowed-methods',
        stage: 'http',
        allow: allowed,
      });
    }
    throw new DeltabrokerError('DB_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`, { field: 'path', stage: 'http' });
  });

  return app;
}

/**
 * Requests Node rejects before fastify sees them (headers over Node's 16 KiB limit, unparsable HTTP) still get a
 * problem+json answer, then the connection is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return;
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new DeltabrokerError('DB_HEADERS_TOO_LARGE', 'the request headers are larger than 16 KiB', { field: 'headers', rule: 'max-bytes', stage: 'http' })
      : new DeltabrokerError('DB_BAD_REQUEST', 'the request is not valid HTTP', { field: 'request', rule: 'http', stage: 'http' });
  const status = httpStatusOf(refusal.code);
  const body = JSON.stringify(toProblem(refusal, randomUUID(), ''));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function authenticate(request: FastifyRequest, verifier: TokenVerifier): Promise<Principal> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header) : null;
  if (!match?.[1]) {
    throw new DeltabrokerError('DB_UNAUTHENTICATED', 'send Authorization: Bearer <token>', { field: 'Authorization', rule: 'bearer', stage: 'auth' });
  }
  return verifier.verify(match[1]);
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function allowedMethods(app: FastifyInstance, url: string): string[] {
  const path = url.split('?')[0] ?? '/';
  return METHODS.filter((method) => app.hasRoute({ method, url: path }));
}
