import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { DeltaSequence } from './delta-stream';
import type { OperationResult } from './load-loops';
import { schemas } from './service-harness';

export interface SendResult extends OperationResult {
  deltaId: string;
}

/**
 * Produces the next delta of a sequence to the `deltas` topic, one send per call, on one long-lived connection (a
 * connection per delta would measure connection churn, not the service). acks=all; a failed send is a failure, not
 * retried: the soak counts it. Calls overlap, and kafkajs does not keep concurrent sends in order: a key's delta
 * taken while its previous one is still being sent waits for that send, as a producer that wants a key's records in
 * order sends them one after another. (Over 5,000 keys the soak picked the same key twice in a row about twice a run,
 * and an update then and then a delete of one key reached the log the other way round, the update refused.)
 */
export class DeltaSender {
  /** Ids of the deltas the broker acknowledged. */
  readonly acknowledged: string[] = [];
  private producer: Producer | undefined;
  /** The Confluent wire-format header: magic byte 0 and the registered schema id. */
  private header: Buffer | undefined;
  /** Per record key, its latest send while that is in flight. */
  private readonly sending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly brokers: string[],
    private readonly registryUrl: string,
    private readonly sequence: DeltaSequence,
    /** Record headers sent with every delta: the actor's proof (`authorization: Bearer <JWT>`, stage 5). */
    private readonly headers: Record<string, string>,
    private readonly origin = Date.now(),
  ) {}

  async connect(): Promise<void> {
    const kafka = new Kafka({ clientId: 'reliability-soak-producer', brokers: this.brokers, logLevel: logLevel.NOTHING });
    this.producer = kafka.producer({ allowAutoTopicCreation: true });
    await this.producer.connect();
    const registry = new SchemaRegistry({ host: this.registryUrl });
    const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schemas.DeltaEnvelope.definition) }, { subject: 'deltas-value' });
    this.header = Buffer.alloc(5);
    this.header.writeUInt32BE(id, 1);
  }

  async one(): Promise<SendResult> {
    const { producer, header } = this;
    if (!producer || !header) throw new Error('DeltaSender.one before connect');
    const delta = this.sequence.next();
    const value = Buffer.concat([header, schemas.DeltaEnvelope.type.toBuffer(delta)]);
    const key = `${delta.tenant}/${delta.entity}/${delta.key}`;
    const started = Date.now();
    const at = (started - this.origin) / 1000;
    const before = this.sending.get(key);
    const send = (async () => {
      await before?.catch(() => undefined);
      await producer.send({ topic: 'deltas', acks: -1, messages: [{ key, value, headers: this.headers }] });
    })();
    this.sending.set(key, send);
    try {
      await send;
      this.acknowledged.push(delta.id);
      return { at, ok: true, status: 0, ms: Date.now() - started, deltaId: delta.id };
    } catch (error) {
      return { at, ok: false, status: 0, ms: Date.now() - started, deltaId: delta.id, error: String(error) };
    } finally {
      if (this.sending.get(key) === send) this.sending.delete(key);
    }
  }

  async close(): Promise<void> {
    await this.producer?.disconnect();
  }
}
