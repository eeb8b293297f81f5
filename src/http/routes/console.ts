import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DeltabrokerError } from '../../errors';

/**
 * The console's page allows only its own scripts, styles and requests: no inline script, nothing from another
 * origin, no framing, so a value from the log that slipped into the markup still could not run.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const ASSET = /^[A-Za-z0-9_.-]{1,128}$/;

export interface ConsoleRouteOptions {
  /** The folder `npm run build` writes the console to (console/dist in the package). */
  readonly assetsDir: string;
  /** Mints the development token (`npx deltabroker token`'s defaults); absent when the dev issuer is off. */
  readonly mintDevToken?: () => Promise<string>;
}

/** The console's built files, from the package root above this module (src/ under tsx, dist/src/ when compiled). */
export function consoleAssetsDir(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'console', 'dist');
    if (path.dirname(dir) === dir) return path.join(from, 'console', 'dist');
  }
}

/**
 * GET /console serves the operator console's static files (no token: they hold no data; every view asks the
 * authenticated JSON routes). Files are read on first request, so the console costs start-up nothing.
 * POST /console/dev-token answers the development token when the dev issuer is on (development mode only), to loopback
 * clients only.
 */
export function registerConsoleRoutes(app: FastifyInstance, options: ConsoleRouteOptions): void {
  const files = new Map<string, Buffer>();
  const send = (reply: FastifyReply, relative: string) => {
    let body = files.get(relative);
    if (!body) {
      const file = path.join(options.assetsDir, relative);
      if (!existsSync(file)) {
        throw new DeltabrokerError('DB_NOT_FOUND', `the console has no ${relative}; build it with \`npm run build\``, { field: 'path', stage: 'console' });
      }
      body = readFileSync(file);
      files.set(relative, body);
    }
    return reply
      .header('Content-Security-Policy', CONSOLE_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-cache')
      .type(TYPES[path.extname(relative)] ?? 'application/octet-stream')
      .send(body);
  };
  const open = { config: { public: true } };

  app.get('/console', open, async (_request, reply) => reply.redirect('/console/'));
  app.get('/console/', open, async (_request, reply) => send(reply, 'index.html'));
  app.get<{ Params: { file: string } }>('/console/assets/:file', open, async (request, reply) => {
    const { file } = request.params;
    if (!ASSET.test(file) || file.startsWith('.')) {
      throw new DeltabrokerError('DB_NOT_FOUND', 'no such console asset', { field: 'path', stage: 'console' });
    }
    return send(reply, path.join('assets', file));
  });

  const mint = options.mintDevToken;
  if (!mint) return;
  // Minting needs no token, so it answers only on the machine itself, as `npx deltabroker token` would: a service
  // in development mode bound beyond loopback must not hand admin tokens to the network.
  app.post('/console/dev-token', open, async (request) => {
    if (!isLoopback(request.socket.remoteAddress)) {
      throw new DeltabrokerError('DB_FORBIDDEN', 'the development token is minted only for a browser on the same machine', {
        field: 'remoteAddress',
        rule: 'loopback',
        stage: 'auth',
      });
    }
    return { token: await mint() };
  });
}

const isLoopback = (address: string | undefined): boolean =>
  address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
