import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ENV_KEYS } from './config-environment';
import { DeltabrokerError } from './errors';
import { LINGER_BELOW_EVENTS } from './log/batch-rounds';

/**
 * The one typed configuration. Sources, later wins: defaults, the optional file named by DELTABROKER_CONFIG
 * (YAML or JSON, same keys as below), then environment variables. Every key is documented in docs/configuration.md.
 */
/** A count of events as the descriptions write it (`1,000 events`). */
const eventsText = (n: number): string => `${n.toLocaleString('en-US')} events`;
const port = z.coerce.number().int().min(0).max(65535);
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

/**
 * Each setting's `description` is its meaning on docs/configuration.md, and `absent` says what an unset optional
 * setting means; `npm run docs:config` renders the page's table from them (src/config-reference.ts).
 */
export const ConfigSchema = z.object({
  mode: z
    .enum(['development', 'production'])
    .default('development')
    .describe('`production` turns off the dev issuer and requires `DELTABROKER_MASTER_KEY` and a token key source'),
  dataDir: z.string().min(1).default('./data').describe('embedded database, master key, dev issuer key, SoftHSM2 token, broker and registry files'),
  http: z
    .object({
      host: z.string().default('127.0.0.1').describe('HTTP listen address'),
      port: port.default(8080).describe('HTTP port (0 picks a free one)'),
      bodyLimitBytes: z.coerce.number().int().positive().default(1_048_576).describe('largest request body, in bytes, on any route'),
    })
    .prefault({}),
  databaseUrl: z
    .string()
    .optional()
    .meta({ description: 'PostgreSQL connection string', absent: 'unset: the embedded PostgreSQL server in `<data dir>/postgres`' }),
  postgres: z
    .object({
      port: port
        .default(5434)
        .describe(
          'port of the embedded PostgreSQL server on 127.0.0.1, used when no `databaseUrl` is set (0 picks a free one); a server reused after a crash keeps its port',
        ),
      connections: z.coerce
        .number()
        .int()
        .min(4)
        .max(1000)
        .default(10)
        .describe(
          "connections of the service's main pool (reads, keys, replays, the console); with `projectionConnections` and `stateConnections`, what one instance holds open at most: keep the sum over every instance and tool below the server's `max_connections`",
        ),
      projectionConnections: z.coerce
        .number()
        .int()
        .min(2)
        .max(1000)
        .default(6)
        .describe("connections of the live projectors' pool (the table and search projectors, asynchronous commit)"),
      stateConnections: z.coerce
        .number()
        .int()
        .min(2)
        .max(1000)
        .default(3)
        .describe(
          "connections of the record state store's pool (the pipeline's states and the deltas' outcomes, every statement keyed, planned once per connection)",
        ),
    })
    .prefault({}),
  datacenter: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,30}$/)
    .default('dc1')
    .describe("this instance's datacenter (local action topics)"),
  instanceId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
    .optional()
    .meta({
      description:
        "this instance's name among the instances sharing a log: its action emitters' transactional ids end with it, so a restarted instance fences what its predecessor left open; give each instance its own",
      absent: 'an id generated once and kept in `<data dir>/instance-id`',
    }),
  actions: z
    .object({
      guarantee: z
        .enum(['exactly-once', 'at-least-once'])
        .default('exactly-once')
        .describe(
          'action topics: `exactly-once` publishes each round of actions and commits its input positions in one transaction (subscribers reading `read_committed` see each event once); `at-least-once` publishes without transactions (a restart may publish an event again)',
        ),
      lingerMs: z.coerce
        .number()
        .int()
        .min(0)
        .max(1000)
        .default(50)
        .describe(
          `action emitters: how long a round of fewer than ${eventsText(LINGER_BELOW_EVENTS.actionEmitters)} that follows another such round waits for more before it is published, as Kafka Streams' \`commit.interval.ms\`: each round is one transaction (or publish), so under a trickle of writes a longer wait means fewer transactions and actions that reach their topics later; \`0\` publishes every round at once`,
        ),
    })
    .prefault({}),
  projections: z
    .object({
      lingerMs: z.coerce
        .number()
        .int()
        .min(0)
        .max(1000)
        .default(20)
        .describe(
          `table and search projectors: how long a round of fewer than ${eventsText(LINGER_BELOW_EVENTS.projectors)} that follows another such round waits for more before it is written (one transaction per round); a read that names a write waits for it either way; \`0\` writes every round at once`,
        ),
    })
    .prefault({}),
  kafka: z
    .object({
      port: port.default(9092).describe('embedded Kafka-protocol broker port'),
      host: z.string().default('127.0.0.1').describe('embedded broker bind address; beyond loopback SASL is required of every client'),
      saslRequired: flag.optional().meta({
        description: 'require SASL of every client of the embedded broker, also on loopback',
        absent: 'production mode or a non-loopback host',
      }),
      maxConnections: z.coerce
        .number()
        .int()
        .min(1)
        .default(1000)
        .describe(
          "embedded broker: open connections (`max.connections`); never more than half the process's open-files limit (`ulimit -n`), so a flood leaves the HTTP server descriptors",
        ),
      maxConnectionsPerIp: z.coerce
        .number()
        .int()
        .min(1)
        .default(500)
        .describe('embedded broker: open connections from one address (`max.connections.per.ip`)'),
      connectionsMaxIdleMs: z.coerce
        .number()
        .int()
        .min(1000)
        .default(600_000)
        .describe('embedded broker: a connection without traffic for this long is closed (`connections.max.idle.ms`)'),
      saslUsername: z.string().min(1).optional().describe("the service's SASL user on a configured Kafka cluster"),
      saslPassword: z.string().min(1).optional().describe("the service's SASL password on a configured Kafka cluster"),
      saslMechanism: z
        .enum(['plain', 'scram-sha-256', 'scram-sha-512'])
        .default('scram-sha-256')
        .describe("the service's SASL mechanism on a configured Kafka cluster"),
      sessionTimeoutMs: z.coerce
        .number()
        .int()
        .min(1000)
        .max(1_800_000)
        .default(30_000)
        .describe(
          "on a Kafka cluster, how long a group waits for a silent member before its partitions go to the others (`session.timeout.ms`; heartbeats at a third, at most every 3 s): the pause after an instance dies. Kafka's consumers default to 45 s; the cluster's `group.min/max.session.timeout.ms` bound it",
        ),
      numPartitions: z.coerce
        .number()
        .int()
        .min(1)
        .max(10_000)
        .default(3)
        .describe("partitions of topics the embedded broker creates without a count (Kafka's `num.partitions`)"),
      offsetsRetentionMinutes: z.coerce
        .number()
        .int()
        .min(1)
        .max(2_147_483_647)
        .default(10_080)
        .describe(
          "embedded broker: how long a consumer group without members keeps its committed offsets, counted from when its last member left (Kafka's `offsets.retention.minutes`); then OffsetFetch answers -1 and the group is no longer listed. The service's pipeline, emitter and projector groups never expire",
        ),
      brokers: z
        .string()
        .transform((s) =>
          s
            .split(',')
            .map((b) => b.trim())
            .filter((b) => b !== ''),
        )
        .optional()
        .meta({ description: 'comma-separated bootstrap brokers of a Kafka cluster', absent: 'unset: the embedded broker' }),
    })
    .prefault({}),
  registry: z
    .object({
      port: port.default(8081).describe('embedded schema registry port'),
      url: z.string().url().optional().meta({ description: 'a Confluent Schema Registry', absent: 'unset: the embedded registry' }),
      basicAuth: z
        .string()
        .regex(/^[^:]+:.+$/)
        .optional()
        .describe('`user:password` (HTTP basic) for a configured registry'),
    })
    .prefault({}),
  entities: z
    .object({
      directory: z.string().default('./config/entities').describe('entity configuration files, `<tenant>/<entity>.yaml` (the embedded tenant API)'),
      tenantApiUrl: z.string().url().optional().describe('base URL of the tenant API; used instead of the files when set'),
    })
    .prefault({}),
  search: z
    .object({
      elasticsearchUrl: z
        .string()
        .url()
        .optional()
        .meta({ description: 'an Elasticsearch cluster for `search`', absent: 'unset: the Postgres search adapter' }),
      opensearchUrl: z
        .string()
        .url()
        .optional()
        .meta({ description: 'an OpenSearch cluster for `search` (not with `DELTABROKER_ELASTICSEARCH_URL`)', absent: 'unset: the Postgres search adapter' }),
    })
    .prefault({})
    .refine((search) => !(search.elasticsearchUrl && search.opensearchUrl), {
      message: 'configure one search engine: elasticsearchUrl or opensearchUrl, not both',
    }),
  reads: z
    .object({
      consistencyTimeoutMs: z.coerce
        .number()
        .int()
        .positive()
        .default(5_000)
        .describe("how long a read or search naming a write's position (`dispatch.after`) waits for the projection to reach it"),
    })
    .prefault({}),
  shutdown: z
    .object({
      timeoutMs: z.coerce
        .number()
        .int()
        .positive()
        .default(30_000)
        .describe('how long a stop (SIGTERM, SIGINT) may take to close every part before the process exits 1, naming the part it waited for'),
    })
    .prefault({}),
  metrics: z
    .object({
      public: flag.default(false).describe('serve `GET /metrics` without a token (for scrapers on a trusted network)'),
    })
    .prefault({}),
  writes: z
    .object({
      timeoutMs: z.coerce
        .number()
        .int()
        .positive()
        .default(10_000)
        .describe("how long a write waits for the pipeline's verdict before answering 504 (the delta still applies)"),
    })
    .prefault({}),
  auth: z
    .object({
      jwksUrl: z.string().url().optional().describe('JWKS endpoint of the token issuer'),
      publicKeyPem: z.string().optional().describe('SPKI PEM public key (RS256/ES256) or an HS256 secret, for issuers without JWKS'),
      issuer: z.string().default('deltabroker-dev').describe('required `iss`'),
      audience: z.string().default('deltabroker').describe('required `aud`'),
      devIssuer: flag.optional().meta({
        description: 'the development token issuer, which signs tokens with a key generated in the data directory',
        absent: 'on in development, off in production',
      }),
      tenantClaim: z.string().default('tenant').describe("the token claim that names the caller's tenant"),
      rolesClaim: z.string().default('roles').describe("the token claim that lists the caller's roles"),
    })
    .prefault({}),
  crypto: z
    .object({
      masterKey: z
        .string()
        .optional()
        .meta({ description: 'base64 of 32 bytes; wraps every key version', absent: 'generated into `<data dir>/master.key` (development only)' }),
      maxPayloadBytes: z.coerce.number().int().positive().max(16_777_216).default(65_536).describe('decoded payload limit of one encryption (at most 16 MiB)'),
      rotateAfterEncryptions: z.coerce
        .number()
        .int()
        .positive()
        .default(2 ** 31)
        .describe('encryptions under one AES-GCM key version before it is rotated automatically (NIST: below 2^32 with random nonces)'),
      sessionTtlSeconds: z.coerce.number().int().positive().default(3600).describe('session lifetime'),
      sessionMaxUses: z.coerce.number().int().positive().default(100_000).describe('encryptions per session'),
    })
    .prefault({}),
  hsm: z
    .object({
      modulePath: z
        .string()
        .optional()
        .meta({ description: 'path of a PKCS#11 module', absent: 'unset: SoftHSM2 in the data directory, when libsofthsm2 is installed' }),
      tokenLabel: z.string().default('deltabroker').describe('token to use'),
      pin: z
        .string()
        .optional()
        .meta({ description: 'user PIN (required with `DELTABROKER_HSM_MODULE`)', absent: 'generated into `<data dir>/softhsm/user.pin` for SoftHSM2' }),
      gcmParams: z
        .enum(['v240', 'v3'])
        .default('v240')
        .describe(
          'which pkcs11js GCM parameter struct to pass: `v240` (`CK_PARAMS_AES_GCM_v240`) or `v3` (`CK_PARAMS_GCM`). pkcs11js 2.1.7 builds both with `ulIvBits`, so neither reaches HSMs that need the struct without it',
        ),
      softhsmDir: z
        .string()
        .optional()
        .meta({ description: 'where the embedded SoftHSM2 token lives when no module is configured', absent: '`<data dir>/softhsm`' }),
    })
    .prefault({}),
});

export type Config = z.infer<typeof ConfigSchema>;
type Env = Record<string, string | undefined>;

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
