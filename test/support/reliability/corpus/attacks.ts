/**
 * Issue 16's attacks, as real clients make them against a running service: forged EntityEvents on the
 * service's topics, deltas claiming roles without proof, deleting or altering a persistence topic, registry
 * mutations without (or with the wrong) credentials, and a flood of idle connections. Each case names the
 * refusal it expects; the suite checks that nothing was written or lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { runningKafkaCredentials, runningRegistryCredentials } from '../../../../src/embedded/engine-credentials';
import type { DeltaEnvelope, EntityEvent } from '../../../../src/log';

export const ATTACK_KEY_PREFIX = 'attack-';

export interface AttackCase {
  readonly attack: 'forged-event' | 'claimed-roles' | 'delete-topic' | 'registry-mutation';
  readonly note: string;
  /** What a client sees: a Kafka error type, an HTTP status, or the refusing stage and code of a delta. */
  readonly expected: string;
  run(): Promise<string>;
}

export interface AttackTarget {
  readonly brokers: string[];
  readonly registryUrl: string;
  readonly dataDir: string;
  readonly eventsTopic: string;
  readonly reservedTopics: readonly string[];
  /** A development-issuer token of tenant acme (or `tenant`). */
  token(roles: string[], options?: { sub?: string; tenant?: string; ttlSeconds?: number }): Promise<string>;
}

type Identity = 'anonymous' | 'client' | 'service';

function client(target: AttackTarget, identity: Identity): Kafka {
  const credentials = runningKafkaCredentials(target.dataDir);
  const user = identity === 'anonymous' ? undefined : credentials?.[identity];
  const sasl = user && ({ mechanism: 'scram-sha-256', username: user.username, password: user.password } as SASLOptions);
  return new Kafka({ clientId: `attacker-${identity}`, brokers: target.brokers, logLevel: logLevel.NOTHING, retry: { retries: 1 }, ...(sasl && { sasl }) });
}

/** The Kafka error type a refused call gave (or `accepted`). */
async function kafkaOutcome(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
    return 'accepted';
  } catch (error) {
    const e = error as { type?: string; errors?: { type?: string }[]; originalError?: { type?: string }; message: string };
    return e.type ?? e.originalError?.type ?? e.errors?.[0]?.type ?? e.message;
  }
}

function forgedEvent(key: string): EntityEvent {
  return {
    eventId: randomUUID(),
    deltaId: randomUUID(),
    requestId: null,
    tenant: 'acme',
    entity: 'merchant_account',
    operation: 'create',
    key,
    version: 99,
    payload: JSON.stringify({ merchantId: key, name: 'Forged' }),
    actor: { user: 'mallory', roles: ['admin'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.now(),
    recordedAt: Date.now(),
  };
}

/** Forged EntityEvents (valid Avro under the topic's own schema) on every reserved topic, from every non-service identity. */
export async function forgedEventCases(target: AttackTarget): Promise<AttackCase[]> {
  const registry = new SchemaRegistry({ host: target.registryUrl });
  const schemaId = await registry.getLatestSchemaId(`${target.eventsTopic}-value`);
  const cases: AttackCase[] = [];
  for (const identity of ['anonymous', 'client'] as const) {
    for (const topic of target.reservedTopics) {
      const key = `${ATTACK_KEY_PREFIX}forged-${identity}`;
      cases.push({
        attack: 'forged-event',
        note: `${identity} produces a version-99 event to ${topic}`,
        expected: 'TOPIC_AUTHORIZATION_FAILED',
        run: async () => {
          const producer = client(target, identity).producer();
          await producer.connect();
          try {
            const value = await registry.encode(schemaId, forgedEvent(key));
            return await kafkaOutcome(() => producer.send({ topic, acks: -1, messages: [{ key: `acme/merchant_account/${key}`, value }] }));
          } finally {
            await producer.disconnect();
          }
        },
      });
    }
  }
  return cases;
}

/** Deltas whose envelope claims `admin` with no proof, a forged or foreign proof, or a token that grants less. */
export async function claimedRoleDeltas(
  target: AttackTarget,
): Promise<{ delta: DeltaEnvelope; headers: Record<string, string>; note: string; expected: string }[]> {
  const delta = (note: string): DeltaEnvelope => ({
    id: randomUUID(),
    requestId: null,
    tenant: 'acme',
    entity: 'merchant_account',
    operation: 'create',
    key: `${ATTACK_KEY_PREFIX}${note}`,
    payload: JSON.stringify({ merchantId: `${ATTACK_KEY_PREFIX}${note}`, name: 'Claimed admin', status: 'vip' }),
    actor: { user: 'mallory', roles: ['admin'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.now(),
    expectedVersion: null,
    retryOf: null,
  });
  const reader = await target.token(['reader'], { sub: 'mallory' });
  const [head, body] = reader.split('.');
  return [
    { delta: delta('no-proof'), headers: {}, note: 'no authorization header', expected: 'permission DB_UNAUTHENTICATED' },
    { delta: delta('garbage'), headers: { authorization: 'Bearer not.a.jwt' }, note: 'a malformed token', expected: 'permission DB_UNAUTHENTICATED' },
    {
      delta: delta('unsigned'),
      headers: { authorization: `Bearer ${head}.${body}.` },
      note: 'a token without its signature',
      expected: 'permission DB_UNAUTHENTICATED',
    },
    { delta: delta('reader'), headers: { authorization: `Bearer ${reader}` }, note: 'a reader token claiming admin', expected: 'permission DB_FORBIDDEN' },
    {
      delta: delta('other-user'),
      headers: { authorization: `Bearer ${await target.token(['admin'], { sub: 'alice' })}` },
      note: "another user's admin token",
      expected: 'permission DB_UNAUTHENTICATED',
    },
    {
      delta: delta('other-tenant'),
      headers: { authorization: `Bearer ${await target.token(['admin'], { sub: 'mallory', tenant: 'globex' })}` },
      note: "another tenant's admin token",
      expected: 'permission DB_FORBIDDEN',
    },
  ];
}

/** Deleting, shrinking the retention of, or growing a persistence topic, as each identity (the service's included). */
export function deleteTopicCases(target: AttackTarget): AttackCase[] {
  const topic = target.eventsTopic;
  const admin = (identity: Identity, note: string, expected: string, work: (a: ReturnType<Kafka['admin']>) => Promise<unknown>): AttackCase => ({
    attack: 'delete-topic',
    note: `${identity}: ${note}`,
    expected,
    run: async () => {
      const a = client(target, identity).admin();
      await a.connect();
      try {
        return await kafkaOutcome(() => work(a));
      } finally {
        await a.disconnect();
      }
    },
  });
  return [
    // Persistence topics cannot be deleted by anyone: the policy answers before the authorizer.
    admin('anonymous', `delete ${topic}`, 'POLICY_VIOLATION', (a) => a.deleteTopics({ topics: [topic] })),
    admin('client', `delete ${topic}`, 'POLICY_VIOLATION', (a) => a.deleteTopics({ topics: [topic] })),
    admin('service', `delete ${topic}`, 'POLICY_VIOLATION', (a) => a.deleteTopics({ topics: [topic] })),
    admin('client', `retention.ms=1 on ${topic}`, 'TOPIC_AUTHORIZATION_FAILED', (a) =>
      a.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: [{ name: 'retention.ms', value: '1' }] }] }),
    ),
    admin('client', `grow ${topic} to 12 partitions`, 'TOPIC_AUTHORIZATION_FAILED', (a) => a.createPartitions({ topicPartitions: [{ topic, count: 12 }] })),
    admin('client', 'delete deltas', 'TOPIC_AUTHORIZATION_FAILED', (a) => a.deleteTopics({ topics: ['deltas'] })),
  ];
}

/** Registry mutations of the service's subjects and global settings, without and with the client's credentials. */
export function registryCases(target: AttackTarget): AttackCase[] {
  const clientAuth = runningRegistryCredentials(target.dataDir)?.client;
  const breaking = JSON.stringify({ type: 'record', name: 'DeltaEnvelope', namespace: 'deltabroker', fields: [{ name: 'hijacked', type: 'string' }] });
  const mutations: [string, string, unknown][] = [
    ['PUT', '/config/deltas-value', { compatibility: 'NONE' }],
    ['PUT', '/config', { compatibility: 'NONE' }],
    ['DELETE', '/subjects/deltas-value', undefined],
    ['DELETE', `/subjects/${target.eventsTopic}-value`, undefined],
    ['POST', '/subjects/deltas-value/versions', { schema: breaking }],
    ['PUT', '/mode', { mode: 'IMPORT' }],
  ];
  const identities: [string, string | undefined, string][] = [
    ['no credentials', undefined, '401'],
    ['a wrong password', `Basic ${Buffer.from('client:wrong').toString('base64')}`, '401'],
    ['the client user', clientAuth && `Basic ${Buffer.from(`${clientAuth.username}:${clientAuth.password}`).toString('base64')}`, '403'],
  ];
  return identities.flatMap(([who, authorization, expected]) =>
    mutations.map(([method, url, body]): AttackCase => ({
      attack: 'registry-mutation',
      note: `${method} ${url} with ${who}`,
      expected,
      run: async () => {
        const headers: Record<string, string> = { 'content-type': 'application/vnd.schemaregistry.v1+json', ...(authorization && { authorization }) };
        const res = await fetch(`${target.registryUrl}${url}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
        return String(res.status);
      },
    })),
  );
}

/** Child processes (limits raised) holding `count` idle connections to the Kafka port; resolves once they settled. */
export async function idleFlood(kafkaPort: number, count: number, processes = 3): Promise<{ connected: number; open: number; stop(): void }> {
  const script = path.resolve(__dirname, '../../../e2e/clients/idle-connections.js');
  const children: ChildProcess[] = [];
  const reports = await Promise.all(
    Array.from({ length: processes }, (_, p) => {
      const sources = [1, 2, 3].map((a) => `127.0.${10 + p}.${a}`).join(',');
      const child = spawn(
        '/bin/sh',
        ['-c', 'ulimit -n 8192 && exec "$0" "$@"', process.execPath, script, '127.0.0.1', String(kafkaPort), String(Math.ceil(count / processes)), sources],
        { stdio: ['pipe', 'pipe', 'ignore'] },
      );
      children.push(child);
      return new Promise<{ connected: number; open: number }>((resolve, reject) => {
        createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) =>
          resolve(JSON.parse(line) as { connected: number; open: number }),
        );
        child.once('exit', (code) => reject(new Error(`flooder exited with ${code}`)));
      });
    }),
  );
  return {
    connected: reports.reduce((n, r) => n + r.connected, 0),
    open: reports.reduce((n, r) => n + r.open, 0),
    stop: () => {
      for (const c of children) c.kill('SIGKILL');
    },
  };
}
