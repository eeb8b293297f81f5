import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { logLevel, Partitioners } from 'kafkajs';
import { kafkaClient } from '../../src/log/kafka/kafka-client'; // as the service's clients: without kafkajs's 1 ms timer loop
import { loadSchemas, type DeltaEnvelope } from '../../src/log';
import { writeKcatInput, type KcatRecord } from './kcat-producer';

/**
 * The end-to-end benchmark's clients: a kafkajs producer writing deltas, the same deltas encoded for kcat (which
 * the benchmark runs itself), and keep-alive HTTP writers. They run in a process of their own (load-process.ts),
 * as a producer or an HTTP client of the service would, so the service's thread does not also carry the load.
 */
export const TENANT = 'acme';
export const ENTITY = 'merchant_account';

const payloadOf = (key: string, i: number): Record<string, unknown> => ({
  merchantId: key,
  name: `Merchant ${i}`,
  country: i % 2 === 0 ? 'DE' : 'FR',
  mcc: 5000 + (i % 1000),
});

const wallMs = (): number => performance.timeOrigin + performance.now();

/** Keys `${prefix}0 … ${prefix}${count - 1}` and, per key, the wall-clock ms at which it was handed to the client. */
export interface SentPhase {
  readonly prefix: string;
  readonly count: number;
}

export interface ProduceOrder extends SentPhase {
  readonly brokers: string[];
  readonly registryUrl: string;
  /** Record headers proving the actor (stage 5). */
  readonly proof: Record<string, string>;
  readonly sendBatch: number;
  readonly inFlight: number;
  /** Paced at this many deltas per second (each send due at its time); as fast as the sends go when absent. */
  readonly perSecond?: number;
}

export interface HttpWriteOrder extends SentPhase {
  readonly url: string;
  readonly token: string;
  readonly concurrency: number;
}

export interface SentTimes {
  readonly sentAt: [string, number][];
  /** CPU (user + system, µs) the client process spent sending and waiting for answers. */
  readonly cpuMicros: number;
}

export interface HttpAnswers extends SentTimes {
  /** Per-request latencies in ms, sorted. */
  readonly latencies: number[];
  readonly errors: number;
}

export interface KcatInputOrder extends SentPhase {
  readonly registryUrl: string;
  /** Where kcat's input is written (kcat-producer.ts writeKcatInput). */
  readonly file: string;
}

/** The create of key `${prefix}${i}`, as a third-party producer writes it. */
function deltaOf(prefix: string, i: number): DeltaEnvelope {
  const key = `${prefix}${i}`;
  return {
    id: randomUUID(),
    requestId: null,
    tenant: TENANT,
    entity: ENTITY,
    operation: 'create',
    key,
    payload: JSON.stringify(payloadOf(key, i)),
    actor: { user: 'bench', roles: ['writer'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.now(),
    expectedVersion: null,
    retryOf: null,
  };
}

const recordKey = (key: string): string => `${TENANT}/${ENTITY}/${key}`;

/** The registry client and the id of DeltaEnvelope, registered under the deltas topic's value subject. */
async function deltaSchema(registryUrl: string): Promise<{ registry: SchemaRegistry; id: number }> {
  const registry = new SchemaRegistry({ host: registryUrl });
  const { id } = await registry.register(
    { type: SchemaType.AVRO, schema: JSON.stringify(loadSchemas().DeltaEnvelope.definition) },
    { subject: 'deltas-value' },
  );
  return { registry, id };
}

/** Deltas onto the deltas topic, the way a third-party producer writes them. */
export async function produceDeltas(order: ProduceOrder): Promise<SentTimes> {
  const kafka = kafkaClient({ clientId: 'bench-producer', brokers: order.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const { registry, id } = await deltaSchema(order.registryUrl);
  const sentAt: [string, number][] = [];
  const cpu = process.cpuUsage();
  try {
    let next = 0;
    const started = performance.now();
    const sender = async (): Promise<void> => {
      while (next < order.count) {
        // This sender's slice is fixed before the pacing wait: other senders move `next` on meanwhile.
        const from = next;
        const to = Math.min(order.count, from + order.sendBatch);
        next = to;
        if (order.perSecond !== undefined) {
          const due = started + (from / order.perSecond) * 1000;
          if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        }
        const at = wallMs();
        const messages = await Promise.all(
          Array.from({ length: to - from }, async (_, j) => {
            const delta = deltaOf(order.prefix, from + j);
            sentAt.push([delta.key, at]);
            return { key: recordKey(delta.key), value: await registry.encode(id, delta), headers: order.proof };
          }),
        );
        await producer.send({ topic: 'deltas', acks: -1, messages });
      }
    };
    await Promise.all(Array.from({ length: order.inFlight }, sender));
  } finally {
    await producer.disconnect();
  }
  return { sentAt, cpuMicros: cpuMicrosSince(cpu) };
}

/** The deltas `produceDeltas` sends, encoded the same way (Confluent framing, Avro) into kcat's input; nothing is sent. */
export async function writeDeltasForKcat(order: KcatInputOrder): Promise<void> {
  const { registry, id } = await deltaSchema(order.registryUrl);
  const records: KcatRecord[] = [];
  for (let i = 0; i < order.count; i++) {
    const delta = deltaOf(order.prefix, i);
    records.push({ key: recordKey(delta.key), value: await registry.encode(id, delta) });
  }
  writeKcatInput(order.file, records);
}

/** Creates through HTTP by `concurrency` keep-alive clients, each waiting for its answer before the next. */
export async function writeOverHttp(order: HttpWriteOrder): Promise<HttpAnswers> {
  const target = new URL(order.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: order.concurrency });
  const latencies: number[] = [];
  const sentAt: [string, number][] = [];
  const cpu = process.cpuUsage();
  let errors = 0;
  let next = 0;
  const once = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const key = `${order.prefix}${i}`;
      const body = JSON.stringify({ dispatch: { entity: ENTITY, operation: 'create' }, payload: payloadOf(key, i) });
      const started = wallMs();
      sentAt.push([key, started]);
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: '/',
          method: 'POST',
          headers: { authorization: `Bearer ${order.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 201) errors += 1;
            latencies.push(wallMs() - started);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: order.concurrency }, async () => {
      while (next < order.count) await once(next++);
    }),
  );
  agent.destroy();
  return { latencies: latencies.sort((a, b) => a - b), errors, sentAt, cpuMicros: cpuMicrosSince(cpu) };
}

function cpuMicrosSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return used.user + used.system;
}
