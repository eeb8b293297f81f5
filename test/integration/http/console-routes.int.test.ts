import fs, { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TokenVerifier } from '../../../src/auth/principal';
import type { RecordHistoryService } from '../../../src/broker/record-history';
import type { TenantOverviewService } from '../../../src/broker/tenant-overview';
import { DeltabrokerError } from '../../../src/errors';
import { buildHttpApp } from '../../../src/http/app';
import { CONSOLE_CSP, consoleAssetsDir, registerConsoleRoutes } from '../../../src/http/routes/console';
import { registerConsoleDataRoutes } from '../../../src/http/routes/console-data';
import { silentLogger } from '../../../src/logger';

/** Tokens are `<tenant>.<roles joined by dots>`. */
const verifier: TokenVerifier = {
  verify: async (token) => {
    const [tenant, ...roles] = token.split('.');
    if (!tenant || roles.length === 0) throw new DeltabrokerError('DB_UNAUTHENTICATED', 'bad token', { stage: 'auth' });
    return { user: 'u', tenant, roles };
  },
};

/** A built console in a temp folder: index.html and one asset. */
function builtConsole(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="/console/assets/app.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'export {};');
  return dir;
}

/** This machine's first IPv4 address that is not loopback, if it has one. */
const networkAddress = (): string | undefined =>
  Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;

async function app(options: { assetsDir: string; mintDevToken?: () => Promise<string> }, host = '127.0.0.1') {
  const http = buildHttpApp({ logger: silentLogger(), verifier, bodyLimitBytes: 1024 });
  const overview = {
    counts: async (tenant: string) => ({ at: 'now', entities: [{ entity: `${tenant}-entity`, accepted: 1, refused: 0 }] }),
    configurations: async (tenant: string) => ({ configs: [{ tenant, entity: 'e' }], refused: [] }),
  };
  const history = { history: async (tenant: string, entity: string, key: string) => [{ tenant, entity, key }] };
  registerConsoleDataRoutes(http, overview as unknown as TenantOverviewService, history as unknown as RecordHistoryService);
  registerConsoleRoutes(http, options);
  const listening = new URL(await http.listen({ host, port: 0 }));
  // Listening on every interface, it is asked at this machine's own network address: a client that is not loopback.
  const url = host === '0.0.0.0' ? `http://${networkAddress()}:${listening.port}` : listening.origin;
  const request = async (method: string, route: string, token?: string) => {
    const response = await fetch(`${url}${route}`, { method, redirect: 'manual', headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };
  return { request, close: () => http.close() };
}

describe('the console routes', () => {
  test('static files without a token, each with the strict CSP, nosniff and its type; /console redirects to /console/', async () => {
    const http = await app({ assetsDir: builtConsole() });
    try {
      expect((await http.request('GET', '/console')).headers.get('location')).toBe('/console/');
      for (const [route, type] of [
        ['/console/', 'text/html; charset=utf-8'],
        ['/console/assets/app.js', 'text/javascript; charset=utf-8'],
      ] as const) {
        const answer = await http.request('GET', route);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toBe(type);
        expect(answer.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      }
    } finally {
      await http.close();
    }
  });

  test('nothing outside the build: dot files, traversal and unknown names are 404; other paths are not routes', async () => {
    const http = await app({ assetsDir: builtConsole() });
    try {
      for (const route of ['/console/assets/..%2F..%2Fpackage.json', '/console/assets/.hidden', '/console/assets/none.js']) {
        expect((await http.request('GET', route)).status).toBe(404);
      }
      // Not a route: answered as any unknown path is, 401 before a token and 404 after.
      expect((await http.request('GET', '/console/index.html')).status).toBe(401);
      expect((await http.request('GET', '/console/index.html', 'acme.admin')).status).toBe(404);
    } finally {
      await http.close();
    }
  });

  test('an unbuilt console says how to build it', async () => {
    const http = await app({ assetsDir: path.join(os.tmpdir(), 'deltabroker-no-console-here') });
    try {
      const answer = await http.request('GET', '/console/');
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'DB_NOT_FOUND', stage: 'console' });
      expect(answer.body).toContain('npm run build');
    } finally {
      await http.close();
    }
  });

  test('the development token only while the dev issuer is on', async () => {
    const off = await app({ assetsDir: builtConsole() });
    const on = await app({ assetsDir: builtConsole(), mintDevToken: async () => 'acme.admin' });
    try {
      expect((await off.request('POST', '/console/dev-token')).status).toBe(401);
      expect((await off.request('POST', '/console/dev-token', 'acme.admin')).status).toBe(404);
      expect(JSON.parse((await on.request('POST', '/console/dev-token')).body)).toEqual({ token: 'acme.admin' });
    } finally {
      await off.close();
      await on.close();
    }
  });

  test('the development token is refused to a client beyond loopback', async () => {
    if (networkAddress() === undefined) {
      console.warn('SKIPPED the non-loopback dev-token check: this machine has no network address but loopback');
      return;
    }
    const exposed = await app({ assetsDir: builtConsole(), mintDevToken: async () => 'acme.admin' }, '0.0.0.0');
    try {
      const answer = await exposed.request('POST', '/console/dev-token');
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'DB_FORBIDDEN', field: 'remoteAddress', rule: 'loopback' });
    } finally {
      await exposed.close();
    }
  });

  test("GET /admin/overview and /admin/entities: admin only, and only the caller's tenant", async () => {
    const http = await app({ assetsDir: builtConsole() });
    try {
      expect((await http.request('GET', '/admin/entities', 'acme.writer')).status).toBe(403);
      expect((await http.request('GET', '/admin/entities/e/records/k/history', 'acme.writer')).status).toBe(403);
      expect(JSON.parse((await http.request('GET', '/admin/entities/e/records/k%201/history', 'globex.admin')).body)).toMatchObject({ field: 'key' });
      expect(JSON.parse((await http.request('GET', '/admin/entities/e/records/k/history', 'globex.admin')).body)).toEqual({
        events: [{ tenant: 'globex', entity: 'e', key: 'k' }],
      });
      expect(JSON.parse((await http.request('GET', '/admin/entities', 'globex.admin')).body)).toEqual({
        configs: [{ tenant: 'globex', entity: 'e' }],
        refused: [],
      });
      expect((await http.request('GET', '/admin/overview')).status).toBe(401);
      expect((await http.request('GET', '/admin/overview', 'acme.writer')).status).toBe(403);
      expect(JSON.parse((await http.request('GET', '/admin/overview', 'globex.admin')).body)).toMatchObject({ entities: [{ entity: 'globex-entity' }] });
    } finally {
      await http.close();
    }
  });

  test('registering the console reads no file, so it adds next to nothing to start-up', async () => {
    const http = buildHttpApp({ logger: silentLogger(), verifier, bodyLimitBytes: 1024 });
    const assetsDir = consoleAssetsDir();
    const touched = ['readFileSync', 'existsSync', 'statSync', 'readdirSync', 'readFile', 'stat', 'createReadStream'].map((name) =>
      jest.spyOn(fs, name as 'readFileSync'),
    );
    try {
      registerConsoleRoutes(http, { assetsDir });
      for (const spy of touched) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of touched) spy.mockRestore();
    }
    await http.close();
  });
});
