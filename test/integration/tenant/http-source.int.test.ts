/**
 * The HTTP tenant API client against a real local HTTP server (node:http). Time is a fake clock handed to the
 * client, so TTL, negative-cache and staleness limits are tested exactly; the requests are real.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeltabrokerError } from '../../../src/errors';
import { HttpEntityConfigSource, parseEntityConfig, type HttpEntityConfigSourceOptions } from '../../../src/tenant';
import { entityConfigSourceContract } from '../../unit/tenant/entity-config-source.contract';
import { defaultConfigInput, minimalInput } from '../../unit/tenant/fixtures';

type Override = { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };

/** A fake tenant API: serves `configs`, unless `override` says otherwise; counts and records requests. */
class FakeTenantApi {
  readonly configs = new Map<string, unknown>();
  override: Override | undefined;
  requests: Array<{ url: string; authorization?: string }> = [];
  private server: Server | undefined;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/api`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  put(input: Record<string, unknown>): void {
    this.configs.set(`${input.tenant as string}/${input.entity as string}`, input);
  }

  count(path: string): number {
    return this.requests.filter((r) => r.url === path).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    this.requests.push({ url, ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }) });
    const o = this.override;
    if (o !== undefined) {
      if (o.delayMs !== undefined) await new Promise((r) => setTimeout(r, o.delayMs));
      if (res.destroyed) return;
      res.writeHead(o.status, { 'content-type': 'application/json', ...o.headers });
      res.end(o.body ?? '');
      return;
    }
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let m = /^\/api\/tenants\/([^/]+)\/entities\/([^/]+)$/.exec(url);
    if (m !== null) {
      const config = this.configs.get(`${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}`);
      return config === undefined ? send(404, { title: 'not found' }) : send(200, config);
    }
    m = /^\/api\/tenants\/([^/]+)\/entities$/.exec(url);
    if (m !== null) {
      const tenant = decodeURIComponent(m[1] as string);
      const items = [...this.configs.values()].filter((c) => (c as { tenant: string }).tenant === tenant);
      return items.length === 0 ? send(404, { title: 'no such tenant' }) : send(200, items);
    }
    if (url === '/api/entities') return send(200, { items: [...this.configs.values()] });
    send(404, { title: 'no route' });
  }
}

const ENTITY_PATH = '/api/tenants/acme/entities/merchant_account';

entityConfigSourceContract('HTTP tenant API', async (inputs) => {
  const api = new FakeTenantApi();
  for (const input of inputs) api.put(input);
  await api.start();
  return { source: new HttpEntityConfigSource({ baseUrl: api.baseUrl }), close: () => api.stop() };
});

describe('HttpEntityConfigSource', () => {
  const api = new FakeTenantApi();
  let clock = 1_000_000;
  const make = (opts: Partial<HttpEntityConfigSourceOptions> = {}) =>
    new HttpEntityConfigSource({
      baseUrl: `${api.baseUrl}/`,
      now: () => clock,
      ttlMs: 10_000,
      negativeTtlMs: 2_000,
      maxStaleMs: 60_000,
      errorBackoffMs: 1_000,
      ...opts,
    });

  beforeAll(() => api.start());
  afterAll(() => api.stop());
  beforeEach(() => {
    api.configs.clear();
    api.override = undefined;
    api.requests = [];
    clock = 1_000_000;
    api.put(defaultConfigInput());
  });

  it('serves a fetched config from the cache until the TTL expires, then fetches the new revision', async () => {
    const source = make();
    expect((await source.get('acme', 'merchant_account'))?.version).toBe(1);
    clock += 9_999;
    expect((await source.get('acme', 'merchant_account'))?.version).toBe(1);
    expect(api.count(ENTITY_PATH)).toBe(1);

    api.put({ ...defaultConfigInput(), version: 2 });
    expect((await source.get('acme', 'merchant_account'))?.version).toBe(1); // still fresh
    clock += 1;
    expect((await source.get('acme', 'merchant_account'))?.version).toBe(2);
    expect(api.count(ENTITY_PATH)).toBe(2);
  });

  it('shares one request among concurrent gets of one entity', async () => {
    api.override = { status: 200, body: JSON.stringify(defaultConfigInput()), delayMs: 50 };
    const source = make();
    const results = await Promise.all(Array.from({ length: 5 }, () => source.get('acme', 'merchant_account')));
    expect(results.every((r) => r === results[0] && r !== undefined)).toBe(true);
    expect(api.count(ENTITY_PATH)).toBe(1);
  });

  it('remembers a 404 for the negative TTL, then asks again', async () => {
    const source = make();
    const path = '/api/tenants/acme/entities/terminal';
    expect(await source.get('acme', 'terminal')).toBeUndefined();
    clock += 1_999;
    expect(await source.get('acme', 'terminal')).toBeUndefined();
    expect(api.count(path)).toBe(1);

    api.put({ ...minimalInput(), tenant: 'acme', entity: 'terminal' });
    clock += 1;
    expect((await source.get('acme', 'terminal'))?.entity).toBe('terminal');
    expect(api.count(path)).toBe(2);
  });

  it('serves the stale config while the API fails, up to maxStale past expiry, then refuses', async () => {
    const source = make();
    const good = await source.get('acme', 'merchant_account');
    api.override = { status: 500, body: '{"title":"boom"}' };

    clock += 10_000; // expired
    expect(await source.get('acme', 'merchant_account')).toBe(good);
    expect(api.count(ENTITY_PATH)).toBe(2);
    clock += 999; // within the error backoff: no new request
    expect(await source.get('acme', 'merchant_account')).toBe(good);
    expect(api.count(ENTITY_PATH)).toBe(2);
    clock += 1; // backoff over: asks again, still failing, still stale
    expect(await source.get('acme', 'merchant_account')).toBe(good);
    expect(api.count(ENTITY_PATH)).toBe(3);

    clock = 1_000_000 + 10_000 + 60_000 + 1; // more than maxStale past expiry
    const err = await source.get('acme', 'merchant_account').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeltabrokerError);
    expect((err as DeltabrokerError).code).toBe('DB_DEPENDENCY_UNAVAILABLE');
    expect((err as DeltabrokerError).retriable).toBe(true);
    expect((err as DeltabrokerError).message).toContain('tenant API answered 500');

    api.override = undefined; // recovery
    expect((await source.get('acme', 'merchant_account'))?.entity).toBe('merchant_account');
  });

  it('serves a remembered 404 stale too while the API fails', async () => {
    const source = make();
    expect(await source.get('acme', 'terminal')).toBeUndefined();
    api.override = { status: 503 };
    clock += 5_000;
    expect(await source.get('acme', 'terminal')).toBeUndefined();
  });

  it('refuses a failure with nothing cached: DB_DEPENDENCY_UNAVAILABLE', async () => {
    api.override = { status: 502 };
    await expect(make().get('acme', 'merchant_account')).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE', details: { stage: 'entity-config' } });
  });

  it.each([
    ['a body that is not JSON', '<html>oops</html>', /is not JSON/],
    ['a config of another entity', JSON.stringify({ ...minimalInput(), tenant: 'acme' }), /with acme\/thing/],
    ['a JSON array', '[]', /with \(none\)\/\(none\)/],
  ])('refuses a malformed answer (%s), and serves the stale config instead when it has one', async (_label, body, message) => {
    api.override = { status: 200, body };
    const fresh = make();
    const err = await fresh.get('acme', 'merchant_account').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
    expect((err as Error).message).toMatch(message);

    api.override = undefined;
    const cached = make();
    const good = await cached.get('acme', 'merchant_account');
    api.override = { status: 200, body };
    clock += 10_000;
    expect(await cached.get('acme', 'merchant_account')).toBe(good);
  });

  it('refuses a configuration that breaks a rule alone: DB_ENTITY_CONFIG_INVALID, cached like an answer, never the old one', async () => {
    const source = make();
    await source.get('acme', 'merchant_account');
    api.put({ ...defaultConfigInput(), persistence: { topic: 'globex.merchant_account.events' } });
    clock += 10_000;
    const err = await source.get('acme', 'merchant_account').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'DB_ENTITY_CONFIG_INVALID',
      retriable: false,
      details: { source: 'tenant API /tenants/acme/entities/merchant_account', field: 'persistence.topic', rule: 'tenant-namespace', stage: 'entity-config' },
    });
    expect((err as Error).message).not.toContain(api.baseUrl);
    // Within the TTL the refusal is answered from the cache; once fixed and expired, the new revision serves.
    await expect(source.get('acme', 'merchant_account')).rejects.toBe(err);
    expect(api.count(ENTITY_PATH)).toBe(2);
    api.put({ ...defaultConfigInput(), version: 2 });
    clock += 10_000;
    expect((await source.get('acme', 'merchant_account'))?.version).toBe(2);
  });

  it('gives up after the request timeout with DB_TIMEOUT', async () => {
    api.override = { status: 200, body: JSON.stringify(defaultConfigInput()), delayMs: 500 };
    const started = Date.now();
    await expect(make({ timeoutMs: 100 }).get('acme', 'merchant_account')).rejects.toMatchObject({ code: 'DB_TIMEOUT', details: { rule: 'timeout' } });
    expect(Date.now() - started).toBeLessThan(450);
  });

  it('refuses an answer larger than maxBodyBytes', async () => {
    api.override = { status: 200, body: JSON.stringify({ ...defaultConfigInput(), description: 'x'.repeat(5_000) }) };
    await expect(make({ maxBodyBytes: 1_000 }).get('acme', 'merchant_account')).rejects.toThrow(/larger than 1000 bytes/);
  });

  it('reports a connection failure as DB_DEPENDENCY_UNAVAILABLE', async () => {
    const closed = new FakeTenantApi();
    await closed.start();
    const baseUrl = closed.baseUrl;
    await closed.stop();
    await expect(new HttpEntityConfigSource({ baseUrl }).get('acme', 'merchant_account')).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
  });

  it('sends the configured headers, and encodes nothing it would not look up', async () => {
    const source = make({ headers: async () => ({ authorization: 'Bearer t0k3n' }) });
    await source.get('acme', 'merchant_account');
    expect(api.requests.at(-1)).toEqual({ url: ENTITY_PATH, authorization: 'Bearer t0k3n' });
    await source.get('acme', '../../admin');
    expect(api.requests).toHaveLength(1);
  });

  it('list() refreshes the per-entity cache', async () => {
    const source = make();
    const listed = await source.list('acme');
    expect(listed).toEqual({ configs: [parseEntityConfig(defaultConfigInput())], refused: [] });
    expect(await source.get('acme', 'merchant_account')).toBe(listed.configs[0]);
    expect(api.count(ENTITY_PATH)).toBe(0);
    source.invalidate('acme');
    await source.get('acme', 'merchant_account');
    expect(api.count(ENTITY_PATH)).toBe(1);
  });

  it('list() serves the valid items and lists the invalid ones among the refused, with their reason', async () => {
    api.put({ ...minimalInput(), tenant: 'evil', entity: 'account', persistence: { topic: 'acme.merchant_account.events' } });
    api.put({ ...minimalInput(), tenant: 'evil', entity: 'Bad-Name' });
    const source = make();
    const listing = await source.list();
    expect(listing.configs.map((c) => `${c.tenant}/${c.entity}`)).toEqual(['acme/merchant_account']);
    expect(listing.refused).toEqual([
      expect.objectContaining({ tenant: 'evil', entity: 'Bad-Name', source: 'tenant API /entities [2]', field: 'entity', rule: 'pattern' }),
      expect.objectContaining({
        tenant: 'evil',
        entity: 'account',
        source: 'tenant API /tenants/evil/entities/account',
        code: 'DB_ENTITY_CONFIG_INVALID',
        field: 'persistence.topic',
        rule: 'tenant-namespace',
      }),
    ]);
    // The refusal is cached like a configuration: get() answers it without asking.
    await expect(source.get('evil', 'account')).rejects.toMatchObject({ code: 'DB_ENTITY_CONFIG_INVALID' });
    expect(api.count('/api/tenants/evil/entities/account')).toBe(0);
  });

  it('list() refuses a failing API without serving stale data', async () => {
    const source = make();
    await source.list();
    api.override = { status: 500 };
    await expect(source.list()).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
  });
});
