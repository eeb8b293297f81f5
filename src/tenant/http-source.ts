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
 * - when a refresh fails (network error, timeout, status other than 200/404, a body that is not JSON, or the
 *   configuration of another entity), the last good answer (config, 404 or refusal) is served for up to
 *   `maxStaleMs` past its expiry, and the API is not asked again for `errorBackoffMs`; past that, or with
 *   nothing cached, get() throws DB_DEPENDENCY_UNAVAILABLE (DB_TIMEOUT for a timeout), both retriable.
 * - a configuration the API answers that breaks a rule is the API's answer, not its failure: that entity is
 *   refused (DB_ENTITY_CONFIG_INVALID, cached like a configuration), as a broken file is; no older version is
 *   served in its place.
 * list() is not cached and never stale; what it returns refreshes the per-entity cache. An invalid item is
 * listed among the refused, the others are served.
 */
import { DeltabrokerError } from '../errors';
import type { Logger } from '../logger';
import { isEntityName, isTenantName, type EntityConfig } from './entity-config';
import { parseEntityConfig } from './parse-entity-config';
import { isEntityConfigRefusal, refusedEntry, type RefusedEntityConfig } from './refusals';
import { entityListing, type EntityConfigSource, type EntityListing } from './source';
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
  /** The configuration, undefined for a 404, or the refusal of an invalid configuration. */
  value: EntityConfig | undefined | DeltabrokerError;
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

type Fetched = { status: 'found'; config: EntityConfig } | { status: 'refused'; refusal: DeltabrokerError } | { status: 'not-found' };

const answer = (value: CacheEntry['value']): EntityConfig | undefined => {
  if (value instanceof DeltabrokerError) throw value;
  return value;
};

/**
 * How a refusal names its source: the resource's path under the base URL. The base URL itself stays out, as
 * these refusals reach the tenant's clients and the tenant API's address is the operator's business.
 */
const entityPath = (tenant: string, entity: string): string => `/tenants/${encodeURIComponent(tenant)}/entities/${encodeURIComponent(entity)}`;
const sourceOf = (resource: string): string => `tenant API ${resource}`;

export class HttpEntityConfigSource implements EntityConfigSource {
  private readonly opts: Required<Omit<HttpEntityConfigSourceOptions, 'headers' | 'logger' | 'fetch' | 'now'>>;
  private readonly headers: HttpEntityConfigSourceOptions['headers'];
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<CacheEntry['value']>>();

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
      return answer(entry.value);
    }
    let pending = this.inflight.get(key);
    if (pending === undefined) {
      pending = this.refresh(tenant, entity, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return answer(await pending);
  }

  async list(tenant?: string): Promise<EntityListing> {
    if (tenant !== undefined && !isTenantName(tenant)) return entityListing([]);
    const resource = tenant === undefined ? '/entities' : `/tenants/${encodeURIComponent(tenant)}/entities`;
    const url = `${this.opts.baseUrl}${resource}`;
    const { status, body } = await this.request(url);
    if (status === 404) return entityListing([]);
    if (status !== 200) throw this.unavailable(`tenant API answered ${status} to GET ${url}`, url);
    const json = this.json(body, url);
    const items: unknown = Array.isArray(json) ? json : (json as { items?: unknown } | null)?.items;
    if (!Array.isArray(items)) throw this.unavailable(`tenant API answer to GET ${url} is neither an array nor {items: [...]}`, url);
    const configs: EntityConfig[] = [];
    const refused: RefusedEntityConfig[] = [];
    const now = this.now();
    items.forEach((item: unknown, i) => {
      const named = namesOf(item);
      // Another tenant's entity in this tenant's list is the API's fault; an item naming none is refused below.
      if (tenant !== undefined && named.tenant !== tenant && named.tenant !== UNNAMED) {
        throw this.unavailable(`GET ${url} returned an entity of tenant ${named.tenant}`, url);
      }
      const cacheable = isTenantName(named.tenant) && isEntityName(named.entity);
      // An item that names its entity is refused under that entity's own resource, as get() would refuse it.
      const source = sourceOf(cacheable ? entityPath(named.tenant, named.entity) : `${resource} [${i}]`);
      let value: EntityConfig | DeltabrokerError;
      try {
        value = parseEntityConfig(item, source);
        configs.push(value);
      } catch (error) {
        if (!isEntityConfigRefusal(error)) throw error;
        value = error;
        refused.push(refusedEntry(named.tenant, named.entity, error));
      }
      if (cacheable) this.cache.set(`${named.tenant}/${named.entity}`, { value, expiresAt: now + this.opts.ttlMs, retryAt: 0 });
    });
    return entityListing(configs, refused);
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

  private async refresh(tenant: string, entity: string, key: string): Promise<CacheEntry['value']> {
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
    const value = fetched.status === 'found' ? fetched.config : fetched.refusal;
    this.cache.set(key, { value, expiresAt: now + this.opts.ttlMs, retryAt: 0 });
    return value;
  }

  private async fetchOne(tenant: string, entity: string): Promise<Fetched> {
    const url = `${this.opts.baseUrl}${entityPath(tenant, entity)}`;
    const { status, body } = await this.request(url);
    if (status === 404) return { status: 'not-found' };
    if (status !== 200) throw this.unavailable(`tenant API answered ${status} to GET ${url}`, url);
    const json = this.json(body, url);
    const named = namesOf(json);
    // An answer that is not this entity's is the API's fault, like a 500; an invalid configuration of this entity
    // is its answer, and refuses the entity.
    if (named.tenant !== tenant || named.entity !== entity) {
      throw this.unavailable(`tenant API answered GET ${url} with ${named.tenant}/${named.entity}`, url);
    }
    try {
      return { status: 'found', config: parseEntityConfig(json, sourceOf(entityPath(tenant, entity))) };
    } catch (error) {
      if (!isEntityConfigRefusal(error)) throw error;
      return { status: 'refused', refusal: error };
    }
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

/** The tenant and entity an item of the API says it is, as far as it says (for naming a refusal). */
function namesOf(item: unknown): { tenant: string; entity: string } {
  const o = item !== null && typeof item === 'object' ? (item as { tenant?: unknown; entity?: unknown }) : {};
  return { tenant: typeof o.tenant === 'string' ? o.tenant : UNNAMED, entity: typeof o.entity === 'string' ? o.entity : UNNAMED };
}

const UNNAMED = '(none)';
