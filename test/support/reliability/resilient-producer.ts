import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { DeltaEnvelope } from '../../../src/log';
import { schemas } from './service-harness';

export interface StreamOptions {
  brokers: string[];
  registryUrl: string;
  batchSize: number;
  /** Called before each batch: the producer waits while it resolves false (flow control against the pipeline). */
  mayProduce?: (acknowledged: number) => boolean;
  /** How long to wait before retrying after a failed send (the broker lives in the killed service). */
  retryDelayMs?: number;
  deadlineMs: number;
  /** Record headers sent with every delta: the actor's proof (`authorization: Bearer <JWT>`, stage 5). */
  headers?: Record<string, string>;
}

export interface StreamResult {
  acknowledged: number;
  /** Sends that failed (broker gone mid-send): each batch was sent again until acknowledged. */
  failedSends: number;
}

/**
 * Streams deltas to the `deltas` topic with acks=all, one batch at a time. A batch that fails is sent again (same
 * delta ids) on a fresh connection until the broker acknowledges it, so a delta may be on the log more than once
 * but later batches never overtake it: per-key order is the generated order.
 */
export async function streamDeltas(deltas: DeltaEnvelope[], o: StreamOptions, onAck: (count: number) => void): Promise<StreamResult> {
  const deadline = Date.now() + o.deadlineMs;
  let producer: Producer | undefined;
  let registry: SchemaRegistry | undefined;
  let schemaId: number | undefined;
  let acknowledged = 0;
  let failedSends = 0;
  const connect = async (): Promise<Producer> => {
    const kafka = new Kafka({ clientId: 'reliability-producer', brokers: o.brokers, logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 100 } });
    const p = kafka.producer({ allowAutoTopicCreation: true });
    await p.connect();
    return p;
  };
  while (acknowledged < deltas.length) {
    if (Date.now() > deadline) throw new Error(`streaming did not finish in time: ${acknowledged} of ${deltas.length} acknowledged`);
    if (o.mayProduce && !o.mayProduce(acknowledged)) {
      await sleep(20);
      continue;
    }
    const batch = deltas.slice(acknowledged, acknowledged + o.batchSize);
    try {
      registry ??= new SchemaRegistry({ host: o.registryUrl });
      schemaId ??= (await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schemas.DeltaEnvelope.definition) }, { subject: 'deltas-value' }))
        .id;
      const id = schemaId;
      const reg = registry;
      const messages = await Promise.all(
        batch.map(async (d) => ({ key: `${d.tenant}/${d.entity}/${d.key}`, value: await reg.encode(id, d), ...(o.headers && { headers: o.headers }) })),
      );
      producer ??= await connect();
      await producer.send({ topic: 'deltas', acks: -1, messages });
      acknowledged += batch.length;
      onAck(acknowledged);
    } catch {
      failedSends++;
      await producer?.disconnect().catch(() => undefined);
      producer = undefined;
      await sleep(o.retryDelayMs ?? 250);
    }
  }
  await producer?.disconnect().catch(() => undefined);
  return { acknowledged, failedSends };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
