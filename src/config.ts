import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DeltabrokerError } from './errors';

/**
 * The one typed configuration. Sources, later wins: defaults, the optional file named by DELTABROKER_CONFIG
 * (YAML or JSON, same keys as below), then environment variables. Every key is documented in the README.
 */
const port = z.coerce.number().int().min(0).max(65535);
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

const ConfigSchema = z.object({
  mode: z.enum(['development', 'production']).default('development'),
  dataDir: z.string().min(1).default('./data'),
  http: z
    .object({
      host: z.string().default('127.0.0.1'),
      port: port.default(8080),
      /** Largest request body accepted on any route, in bytes. */
      bodyLimitBytes: z.coerce.number().int().positive().default(1_048_576),
    })
    .prefault({}),
  databaseUrl: z.string().optional(),
  postgres: z
    .object({
      /** Port of the embedded PostgreSQL server (used when no databaseUrl is set); 0 picks a free one. */
      port: port.default(5434),
    })
    .prefault({}),
  datacenter: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,30}$/)
    .default('dc1'),
  kafka: z
    .object({
      port: port.default(9092),
      /** Bind address of the embedded broker. Beyond loopback, SASL is required of every client. */
      host: z.string().default('127.0.0.1'),
      /** Require SASL of every client of the embedded broker, also on loopback (always on in production mode). */
      saslRequired: flag.optional(),
      /** Open connections the embedded broker accepts, in total and from one address (`max.connections[.per.ip]`). */
      maxConnections: z.coerce.number().int().min(1).default(1000),
      maxConnectionsPerIp: z.coerce.number().int().min(1).default(500),
      /** A connection without traffic for this long is closed (`connections.max.idle.ms`). */
      connectionsMaxIdleMs: z.coerce.number().int().min(1000).default(600_000),
      /** SASL credentials the service uses on a configured Kafka cluster (SCRAM-SHA-256 unless a mechanism is named). */
      saslUsername: z.string().min(1).optional(),
      saslPassword: z.string().min(1).optional(),
      saslMechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).default('scram-sha-256'),
      /** Partitions of topics the embedded broker creates without a count (Kafka's `num.partitions`). */
      numPartitions: z.coerce.number().int().min(1).max(10_000).default(3),
      /** Bootstrap brokers of a Kafka cluster. Absent: the embedded broker on `port`. */
      brokers: z
        .string()
        .transform((s) =>
          s
            .split(',')
            .map((b) => b.trim())
            .filter((b) => b !== ''),
        )
        .optional(),
    })
    .prefault({}),
  registry: z
    .object({
      port: port.default(8081),
      /** A Confluent Schema Registry. Absent: the embedded registry on `port`. */
      url: z.string().url().optional(),
      /** HTTP basic credentials (`user:password`) the service uses on a configured registry. */
      basicAuth: z
        .string()
        .regex(/^[^:]+:.+$/)
        .optional(),
    })
    .prefault({}),
  entities: z
    .object({
      /** Folder of `<tenant>/<entity>.yaml` files (the embedded tenant API). */
      directory: z.string().default('./config/entities'),
      /** Base URL of the tenant API; when set it is used instead of the folder. */
      tenantApiUrl: z.string().url().optional(),
    })
    .prefault({}),
  search: z
    .object({
      /** An Elasticsearch cluster. Absent: the Postgres search adapter on the relational store. */
      elasticsearchUrl: z.string().url().optional(),
    })
    .prefault({}),
  reads: z
    .object({
      /** How long a read or search that names a write's position waits for the projection to reach it. */
      consistencyTimeoutMs: z.coerce.number().int().positive().default(5_000),
    })
    .prefault({}),
  metrics: z
    .object({
      /** Serve GET /metrics without a token (for scrapers on a trusted network). */
      public: flag.default(false),
    })
    .prefault({}),
  writes: z
    .object({
      /** How long a write waits for the pipeline's verdict before answering 504 (the delta still applies). */
      timeoutMs: z.coerce.number().int().positive().default(10_000),
    })
    .prefault({}),
  auth: z
    .object({
      /** JWKS endpoint of the token issuer (production). */
      jwksUrl: z.string().url().optional(),
      /** A PEM public key (SPKI) or an HS256 secret, for issuers without JWKS. */
      publicKeyPem: z.string().optional(),
      issuer: z.string().default('deltabroker-dev'),
      audience: z.string().default('deltabroker'),
      /** The dev issuer signs tokens with a key generated in the data directory. */
      devIssuer: flag.optional(),
      tenantClaim: z.string().default('tenant'),
      rolesClaim: z.string().default('roles'),
    })
    .prefault({}),
  crypto: z
    .object({
      /** Base64 of 32 bytes. Absent in development: generated into the data directory. */
      masterKey: z.string().optional(),
      maxPayloadBytes: z.coerce.number().int().positive().max(16_777_216).default(65_536),
      /** Encryptions under one AES-GCM key version before it is rotated (NIST: below 2^32 with random nonces). */
      rotateAfterEncryptions: z.coerce
        .number()
        .int()
        .positive()
        .default(2 ** 31),
      sessionTtlSeconds: z.coerce.number().int().positive().default(3600),
      sessionMaxUses: z.coerce.number().int().positive().default(100_000),
    })
    .prefault({}),
  hsm: z
    .object({
      /** Path of a PKCS#11 module. Absent: SoftHSM2 in the data directory when libsofthsm2 is installed. */
      modulePath: z.string().optional(),
      tokenLabel: z.string().default('deltabroker'),
      pin: z.string().optional(),
      gcmParams: z.enum(['v240', 'v3']).default('v240'),
      /** Where the embedded SoftHSM2 token lives when no module is configured. Default: <dataDir>/softhsm. */
      softhsmDir: z.string().optional(),
    })
    .prefault({}),
});

export type Config = z.infer<typeof ConfigSchema>;
type Env = Record<string, string | undefined>;

/** Environment variable → config path. */
const ENV_KEYS: Record<string, string[]> = {
  DELTABROKER_MODE: ['mode'],
  DELTABROKER_DATA_DIR: ['dataDir'],
  DELTABROKER_HTTP_HOST: ['http', 'host'],
  DELTABROKER_HTTP_PORT: ['http', 'port'],
  DELTABROKER_HTTP_BODY_LIMIT_BYTES: ['http', 'bodyLimitBytes'],
  DATABASE_URL: ['databaseUrl'],
  DELTABROKER_POSTGRES_PORT: ['postgres', 'port'],
  DELTABROKER_DATACENTER: ['datacenter'],
  DELTABROKER_KAFKA_PORT: ['kafka', 'port'],
  DELTABROKER_KAFKA_NUM_PARTITIONS: ['kafka', 'numPartitions'],
  DELTABROKER_KAFKA_HOST: ['kafka', 'host'],
  DELTABROKER_KAFKA_SASL_REQUIRED: ['kafka', 'saslRequired'],
  DELTABROKER_KAFKA_MAX_CONNECTIONS: ['kafka', 'maxConnections'],
  DELTABROKER_KAFKA_MAX_CONNECTIONS_PER_IP: ['kafka', 'maxConnectionsPerIp'],
  DELTABROKER_KAFKA_CONNECTIONS_MAX_IDLE_MS: ['kafka', 'connectionsMaxIdleMs'],
  DELTABROKER_KAFKA_SASL_USERNAME: ['kafka', 'saslUsername'],
  DELTABROKER_KAFKA_SASL_PASSWORD: ['kafka', 'saslPassword'],
  DELTABROKER_KAFKA_SASL_MECHANISM: ['kafka', 'saslMechanism'],
  DELTABROKER_REGISTRY_PORT: ['registry', 'port'],
  DELTABROKER_SCHEMA_REGISTRY_BASIC_AUTH: ['registry', 'basicAuth'],
  DELTABROKER_KAFKA_BROKERS: ['kafka', 'brokers'],
  DELTABROKER_SCHEMA_REGISTRY_URL: ['registry', 'url'],
  DELTABROKER_ENTITIES_DIR: ['entities', 'directory'],
  DELTABROKER_TENANT_API_URL: ['entities', 'tenantApiUrl'],
  DELTABROKER_WRITE_TIMEOUT_MS: ['writes', 'timeoutMs'],
  DELTABROKER_METRICS_PUBLIC: ['metrics', 'public'],
  DELTABROKER_ELASTICSEARCH_URL: ['search', 'elasticsearchUrl'],
  DELTABROKER_READ_CONSISTENCY_TIMEOUT_MS: ['reads', 'consistencyTimeoutMs'],
  DELTABROKER_JWKS_URL: ['auth', 'jwksUrl'],
  DELTABROKER_JWT_PUBLIC_KEY: ['auth', 'publicKeyPem'],
  DELTABROKER_JWT_ISSUER: ['auth', 'issuer'],
  DELTABROKER_JWT_AUDIENCE: ['auth', 'audience'],
  DELTABROKER_DEV_ISSUER: ['auth', 'devIssuer'],
  DELTABROKER_MASTER_KEY: ['crypto', 'masterKey'],
  DELTABROKER_MAX_PAYLOAD_BYTES: ['crypto', 'maxPayloadBytes'],
  DELTABROKER_SESSION_TTL_SECONDS: ['crypto', 'sessionTtlSeconds'],
  DELTABROKER_SESSION_MAX_USES: ['crypto', 'sessionMaxUses'],
  DELTABROKER_HSM_MODULE: ['hsm', 'modulePath'],
  DELTABROKER_HSM_TOKEN_LABEL: ['hsm', 'tokenLabel'],
  DELTABROKER_HSM_PIN: ['hsm', 'pin'],
  DELTABROKER_HSM_GCM_PARAMS: ['hsm', 'gcmParams'],
  DELTABROKER_SOFTHSM_DIR: ['hsm', 'softhsmDir'],
};

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = (next && typeof next === 'object' ? next : (node[key] = {})) as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}

function readConfigFile(file: string): Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  const parsed: unknown = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (!parsed || typeof parsed !== 'object') {
    throw new DeltabrokerError('DB_VALIDATION', `config file ${file} must hold an object`, { field: 'DELTABROKER_CONFIG' });
  }
  return parsed as Record<string, unknown>;
}

export function loadConfig(env: Env = process.env, overrides: Record<string, unknown> = {}): Config {
  const raw: Record<string, unknown> = env.DELTABROKER_CONFIG ? readConfigFile(env.DELTABROKER_CONFIG) : {};
  for (const [name, keys] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(raw, keys, value);
  }
  const merged = deepMerge(raw, overrides);
  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    throw new DeltabrokerError('DB_VALIDATION', `invalid configuration at ${field}: ${issue?.message}`, {
      field,
      rule: issue?.code,
      stage: 'config',
    });
  }
  const config = result.data;
  config.dataDir = path.resolve(config.dataDir);
  config.entities.directory = path.resolve(config.entities.directory);
  // The dev issuer is on by default in development and never silently in production.
  config.auth.devIssuer ??= config.mode === 'development';
  if (config.mode === 'production') assertProductionSafe(config);
  return config;
}

function assertProductionSafe(config: Config): void {
  if (!config.crypto.masterKey) {
    throw new DeltabrokerError('DB_VALIDATION', 'production mode needs DELTABROKER_MASTER_KEY', {
      field: 'crypto.masterKey',
      rule: 'required-in-production',
      stage: 'config',
    });
  }
  if (!config.auth.jwksUrl && !config.auth.publicKeyPem && !config.auth.devIssuer) {
    throw new DeltabrokerError('DB_VALIDATION', 'production mode needs DELTABROKER_JWKS_URL or DELTABROKER_JWT_PUBLIC_KEY', {
      field: 'auth',
      rule: 'required-in-production',
      stage: 'config',
    });
  }
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && prior && typeof prior === 'object'
        ? deepMerge(prior as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}
