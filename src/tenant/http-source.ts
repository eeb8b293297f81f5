/**
 * Entity configuration from the tenant API over HTTP.
 *
 *   GET {baseUrl}/tenants/{tenant}/entities/{entity}  → 200 with the entity config JSON (same shape as the
 *                                                       YAML files), or 404 when the tenant has no such entity
 *   GET {baseUrl}/tenants/{tenant}/entities           → 200 with an array of configs (or {items: [...]}) — list(tenant)
 *   GET {baseUrl}/entities                            → the same over every tenant — list()
 *
 * Caching (per tenant/entity):
 * - a found config is served from memory for `ttlMs`; a 404 is remembered for `negativeTtlMs`;
 * - concurrent gets of one entity share one request;
 * - when a refresh fails (network error, timeout, status other than 200/404, malformed JSON or an invalid
 *   config), the last good answer (config or 404) is served for up to `maxStaleMs` past its expiry, and the
 *   API is not asked again for `errorBackoffMs`; past that, or with nothing cached, get() throws
 *   DB_DEPENDENCY_UNAVAILABLE (DB_TIMEOUT for a timeout), both retriable.
 * list() is not cached and never stale; what it returns refreshes the per-entity cache.
 */
import { DeltabrokerError } from '../errors';
import type { Logger } from '../logger';
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { parseEntityConfig } from './parse-entity-config';
import { byTenantThenEntity, type EntityConfigSource } from './source';
import { STAGES } from '../log/topology/stages';

export interface HttpEntityConfigSourceOptions {
  /** The tenant API's base URL, e.g. `https://tenants.internal/api`. */
  baseUrl: string;
  /** How long a fetched config is fresh. Default 30 s. */
  ttlMs?: number;
  /** How long a 404 is remembered. Default 5 s. */
  negativeTtlMs?: number;
  /** How long past its expiry a cached answer may still be served while the API fails. Default 5 min. */
  maxStaleMs?: number;
  /** After a failed refresh, stale answers are served without asking the API for this long. Default 1 s. */
  errorBackoffMs?: number;
  /** Time limit of one request, body included. Default 2 s. */
  timeoutMs?: number;
  /** Largest accepted response body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Extra request headers (e.g. Authorization), or a function giving them per request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Injected for tests; defaults to Date.now. */
  now?: () => number;
  logger?: Logger;
}

interface CacheEntry {
  value: EntityConfig | undefined;
  expiresAt: number;
  /** No refresh is attempted before this time (set after a failed refresh). */
  retryAt: number;
}

const DEFAULTS = {
  ttlMs: 30_000,
  negativeTtlMs: 5_000,
  maxStaleMs: 300_000,
  errorBackoffMs: 1_000,
  timeoutMs: 2_000,
  maxBodyBytes: 1 << 20,
};

type Fetched = { status: 'found'; config: EntityConfig } | { status: 'not-found' };

export class HttpEntityConfigSource implements EntityConfigSource {
  private readonly opts: Required<Omit<HttpEntityConfigSourceOptions, 'headers' | 'logger' | 'fetch' | 'now'>>;
  private readonly headers: HttpEntityConfigSourceOptions['headers'];
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<EntityConfig | undefined>>();

  constructor(options: HttpEntityConfigSourceOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    try {
      new URL(baseUrl);
    } catch {
      throw new DeltabrokerError('DB_INTERNAL', `tenant API base URL is not a URL: ${JSON.stringify(options.baseUrl)}`, {
        field: 'baseUrl',
        rule: 'url',
        stage: STAGES.entityConfig,
      });
    }
    this.opts = {
      baseUrl,
      ttlMs: options.ttlMs ?? DEFAULTS.ttlMs,
      negativeTtlMs: options.negativeTtlMs ?? DEFAULTS.negativeTtlMs,
      maxStaleMs: options.maxStaleMs ?? DEFAULTS.maxStaleMs,
      errorBackoffMs: options.errorBackoffMs ?? DEFAULTS.errorBackoffMs,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    };
    this.headers = options.headers;
    this.fetchFn = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
  }

  async get(tenant: string, entity: string): Promise<EntityConfig | undefined> {
    if (!isTenantName(tenant) || !isEntityName(entity)) return undefined;
    const key = `${tenant}/${entity}`;
    const entry = this.cache.get(key);
    const now = this.now();
    if (entry !== undefined && (now < entry.expiresAt || (now < entry.retryAt && this.servable(entry, now)))) {
      return entry.value;
    }
    const pending = this.inflight.get(key);
    if (pending !== undefined) return pending;
    const p = this.refresh(tenant, entity, key).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  async list(tenant?: string): Promise<EntityConfig[]> {
    if (tenant !== undefined && !isTenantName(tenant)) return [];
    const url = tenant === undefined ? `${this.opts.baseUrl}/entities` : `${this.opts.baseUrl}/tenants/${encodeURIComponent(tenant)}/entities`;
    const { status, body } = await this.request(url);
    if (status === 404) return [];
    if (status !== 200) throw this.unavailable(`tenant API answered ${status} to GET ${url}`, url);
    const json = this.json(body, url);
    const items: unknown = Array.isArray(json) ? json : (json as { items?: unknown } | null)?.items;
    if (!Array.isArray(items)) throw this.unavailable(`tenant API answer to GET ${url} is neither an array nor {items: [...]}`, url);
    const configs = items.map((item, i) => parseEntityConfig(item, `${url} [${i}]`, 'DB_DEPENDENCY_UNAVAILABLE'));
    const now = this.now();
    for (const c of configs) {
      if (tenant !== undefined && c.tenant !== tenant) throw this.unavailable(`GET ${url} returned an entity of tenant ${c.tenant}`, url);
      this.cache.set(`${c.tenant}/${c.entity}`, { value: c, expiresAt: now + this.opts.ttlMs, retryAt: 0 });
    }
    return configs.sort(byTenantThenEntity);
  }

  /** Forgets cached answers: one entity's, one tenant's, or all. */
  invalidate(tenant?: string, entity?: string): void {
    for (const key of [...this.cache.keys()]) {
      const [t, e] = key.split('/');
      if ((tenant === undefined || t === tenant) && (entity === undefined || e === entity)) this.cache.delete(key);
    }
  }

  private servable(entry: CacheEntry, now: number): boolean {
    return now - entry.expiresAt <= this.opts.maxStaleMs;
  }

  private async refresh(tenant: string, entity: string, key: string): Promise<EntityConfig | undefined> {
    let fetched: Fetched;
    try {
      fetched = await this.fetchOne(tenant, entity);
    } catch (e) {
      const entry = this.cache.get(key);
      const now = this.now();
      if (entry !== undefined && this.servable(entry, now)) {
        entry.retryAt = now + this.opts.errorBackoffMs;
        this.logger?.warn(
          { event: 'tenant_api.stale', tenant, entity, staleForMs: Math.max(0, now - entry.expiresAt), err: (e as Error).message },
          'tenant API failed; serving the cached entity configuration',
        );
        return entry.value;
      }
      throw e;
    }
    const now = this.now();
    if (fetched.status === 'not-found') {
      this.cache.set(key, { value: undefined, expiresAt: now + this.opts.negativeTtlMs, retryAt: 0 });
      return undefined;
    }
    this.cache.set(key, { value: fetched.config, expiresAt: now + this.opts.ttlMs, retryAt: 0 });
    return fetched.config;
  }

  private async fetchOne(tenant: string, entity: string): Promise<Fetched> {
    const url = `${this.opts.baseUrl}/tenants/${encodeURIComponent(tenant)}/entities/${encodeURIComponent(entity)}`;
    const { status, body } = await this.request(url);
    if (status === 404) return { status: 'not-found' };
    if (status !== 200) throw this.unavailable(`tenant API answered ${status} to GET ${url}`, url);
    const config = parseEntityConfig(this.json(body, url), url, 'DB_DEPENDENCY_UNAVAILABLE');
    if (config.tenant !== tenant || config.entity !== entity) {
      throw this.unavailable(`tenant API answered GET ${url} with ${config.tenant}/${config.entity}`, url);
    }
    return { status: 'found', config };
  }

  private async request(url: string): Promise<{ status: number; body: string }> {
    const extra = typeof this.headers === 'function' ? await this.headers() : (this.headers ?? {});
    try {
      const res = await this.fetchFn(url, {
        method: 'GET',
        headers: { accept: 'application/json', ...extra },
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => undefined);
        return { status: res.status, body: '' };
      }
      return { status: res.status, body: await this.readBody(res, url) };
    } catch (e) {
      if (e instanceof DeltabrokerError) throw e;
      const name = (e as { name?: string } | null)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new DeltabrokerError(
          'DB_TIMEOUT',
          `tenant API did not answer GET ${url} within ${this.opts.timeoutMs} ms`,
          {
            stage: STAGES.entityConfig,
            rule: 'timeout',
            url,
          },
          { cause: e },
        );
      }
      throw this.unavailable(`tenant API request GET ${url} failed: ${(e as Error).message}`, url, e);
    }
  }

  private async readBody(res: Response, url: string): Promise<string> {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > this.opts.maxBodyBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw this.unavailable(`tenant API answer to GET ${url} is larger than ${this.opts.maxBodyBytes} bytes`, url);
    }
    if (res.body === null) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
      if (done) break;
      size += value.byteLength;
      if (size > this.opts.maxBodyBytes) {
        await reader.cancel().catch(() => undefined);
        throw this.unavailable(`tenant API answer to GET ${url} is larger than ${this.opts.maxBodyBytes} bytes`, url);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private json(body: string, url: string): unknown {
    try {
      return JSON.parse(body);
    } catch (e) {
      throw this.unavailable(`tenant API answer to GET ${url} is not JSON: ${(e as Error).message}`, url, e);
    }
  }

  private unavailable(message: string, url: string, cause?: unknown): DeltabrokerError {
    return new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', message, { stage: STAGES.entityConfig, rule: 'tenant-api', url }, { cause });
  }
}
