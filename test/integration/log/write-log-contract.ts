/**
 * The write-log contract: what every backend of the WriteLog port must do. Run with the kafkajs adapter against
 * the embedded broker + embedded registry (write-log.embedded.int.test.ts) and against Kafka + Confluent Schema
 * Registry in containers (kafka-containers.int.test.ts), and with the in-process adapter on the embedded broker
 * (write-log.in-process.int.test.ts). Topics and groups are unique per test, so tests never see each other's
 * records.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { ValueCodec } from '../../../src/log/codec';
import { eventually } from '../../support/topics';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import type { LogRecord, OutgoingRecord, RecordBatch, Subscription, WriteLog } from '../../../src/log/port';
import { loadSchemas, recordSchema, type ActionEvent, type DeltaEnvelope, type DeltaOutcome, type EntityEvent, type Rejection } from '../../../src/log/schemas';

export interface Backend {
  /** Kafka-protocol address of the log: raw kafkajs clients write poison bytes through it. */
  readonly brokers: readonly string[];
  readonly registryUrl: string;
  /** Opens the adapter under test; the kafkajs adapter on `brokers` when absent. */
  openLog?(o: { readonly rejectionsTopic: string }): Promise<WriteLog>;
  stop(): Promise<void>;
}

const schemas = loadSchemas();
const WAIT_MS = 20_000;

export const sampleDelta = (n: number, key = `c-${n}`): DeltaEnvelope => ({
  id: `d-${n}-${randomUUID()}`,
  requestId: n % 2 === 0 ? `r-${n}` : null,
  tenant: 'acme',
  entity: 'customer',
  operation: 'update',
  key,
  payload: JSON.stringify({ n, name: `name ${n}`, note: 'ünïcødé ✓' }),
  actor: { user: 'u-1', roles: ['writer', 'auditor'] },
  origin: { datacenter: 'dc1' },
  occurredAt: 1767225600000 + n,
  expectedVersion: n % 3 === 0 ? null : n,
  retryOf: null,
});

const sampleEvent = (n: number): EntityEvent => ({
  eventId: `e-${n}`,
  deltaId: `d-${n}`,
  requestId: null,
  tenant: 'acme',
  entity: 'customer',
  operation: 'create',
  key: `c-${n}`,
  version: 1,
  payload: '{"name":"Ada"}',
  actor: { user: 'u-1', roles: [] },
  origin: { datacenter: 'dc2' },
  occurredAt: 1767225600000,
  recordedAt: 1767225600123,
});

const sampleAction = (n: number): ActionEvent => ({
  eventId: `e-${n}`,
  deltaId: `d-${n}`,
  tenant: 'acme',
  entity: 'customer',
  operation: 'delete',
  key: `c-${n}`,
  version: 4,
  payload: null,
  user: 'u-1',
  datacenter: 'dc1',
  occurredAt: 1767225600000,
  emittedAt: 1767225600500,
});

const sampleRejection = (n: number): Rejection => ({
  id: `x-${n}`,
  stage: 'permission',
  reason: 'DB_FORBIDDEN',
  message: 'role writer may not update field salary',
  deltaId: `d-${n}`,
  requestId: `r-${n}`,
  tenant: 'acme',
  entity: 'customer',
  key: `c-${n}`,
  source: { topic: 'deltas', partition: 0, offset: n, key: `acme/customer/c-${n}` },
  raw: null,
  rejectedAt: 1767225600999,
});

const sampleOutcome = (n: number): DeltaOutcome => ({
  deltaId: `d-${n}`,
  tenant: 'acme',
  entity: 'customer',
  key: `c-${n}`,
  status: 'accepted',
  version: 2,
  eventId: `e-${n}`,
  topic: 'acme.customer.events',
  partition: 1,
  offset: '9007199254740993',
  code: null,
  stage: null,
  message: null,
  details: null,
  decidedAt: 1767225600777,
});

/** Avsc decodes records into class instances; compare them as plain data. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** Collects what a subscription hands over until `enough` says so (or times out). */
class Collector<T> {
  readonly records: LogRecord<T>[] = [];
  readonly batches: RecordBatch<T>[] = [];
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  readonly handle = async (batch: RecordBatch<T>): Promise<void> => {
    this.batches.push(batch);
    this.records.push(...batch.records);
    this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
  };

  until(check: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}; got ${this.records.length} records`)), ms);
      this.waiters.push({ check, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  count(n: number): Promise<void> {
    return this.until(() => this.records.length >= n, `${n} records`);
  }
}

const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

export function describeWriteLogContract(name: string, start: () => Promise<Backend | undefined>): void {
  describe(`write-log contract: ${name}`, () => {
    let backend: Backend;
    let log: WriteLog;
    let rejectionsTopic: string;
    const subscriptions: Subscription[] = [];
    const rawKafka = () => new Kafka({ clientId: 'contract-raw', brokers: [...backend.brokers], logLevel: logLevel.NOTHING });

    beforeAll(async () => {
      const started = await start();
      if (!started) throw new Error('backend did not start');
      backend = started;
    });
    afterAll(async () => {
      await backend?.stop();
    });

    beforeEach(async () => {
      rejectionsTopic = unique('rejections');
      log = backend.openLog
        ? await backend.openLog({ rejectionsTopic })
        : await openKafkaWriteLog({ brokers: backend.brokers, registryUrl: backend.registryUrl, rejectionsTopic });
      await log.createTopics([{ topic: rejectionsTopic }]);
    });
    afterEach(async () => {
      await Promise.allSettled(subscriptions.splice(0).map((s) => s.stop()));
      await log.close();
    });

    const subscribe = async <T>(
      topics: string[],
      collector: Collector<T>,
      groupId = unique('group'),
      extra: Partial<Parameters<WriteLog['subscribe']>[0]> = {},
    ) => {
      const sub = await log.subscribe<T>({ groupId, topics, handleBatch: collector.handle, ...(extra as object) });
      subscriptions.push(sub);
      return sub;
    };

    test('createTopics is idempotent and a new topic has offsets 0..0 per partition', async () => {
      const topic = unique('created');
      expect(await log.createTopics([{ topic, partitions: 3 }])).toEqual([topic]);
      expect(await log.createTopics([{ topic, partitions: 3 }])).toEqual([]);
      expect(await log.topicOffsets(topic)).toEqual([0, 1, 2].map((partition) => ({ partition, low: '0', high: '0' })));
    });

    test('every record type round-trips: value, key, headers, partition and offset as published', async () => {
      const topics = {
        DeltaEnvelope: unique('deltas'),
        EntityEvent: unique('events'),
        ActionEvent: unique('actions'),
        Rejection: unique('refusals'),
        DeltaOutcome: unique('outcomes'),
      };
      await log.createTopics(Object.values(topics).map((topic) => ({ topic, partitions: 2 })));
      const outgoing: OutgoingRecord[] = [
        {
          topic: topics.DeltaEnvelope,
          key: 'acme/customer/c-1',
          value: sampleDelta(1, 'c-1'),
          schema: schemas.DeltaEnvelope,
          headers: { 'x-request-id': 'r-1' },
        },
        { topic: topics.DeltaEnvelope, key: 'acme/customer/c-2', value: sampleDelta(2, 'c-2'), schema: schemas.DeltaEnvelope },
        { topic: topics.EntityEvent, key: 'acme/customer/c-1', value: sampleEvent(1), schema: schemas.EntityEvent },
        { topic: topics.ActionEvent, key: 'acme/customer/c-1', value: sampleAction(1), schema: schemas.ActionEvent, headers: { 'event-id': 'e-1' } },
        { topic: topics.Rejection, key: 'acme/customer/c-1', value: sampleRejection(1), schema: schemas.Rejection },
        { topic: topics.DeltaOutcome, key: 'd-1', value: sampleOutcome(1), schema: schemas.DeltaOutcome },
      ];
      const published = await log.publish(outgoing);
      expect(published.map((p) => p.topic)).toEqual(outgoing.map((o) => o.topic));

      const collector = new Collector();
      await subscribe(Object.values(topics), collector);
      await collector.count(outgoing.length);
      for (const [i, out] of outgoing.entries()) {
        const where = published[i]!;
        const got = collector.records.find((r) => r.topic === where.topic && r.partition === where.partition && r.offset === where.offset);
        expect(got).toBeDefined();
        expect(plain(got!.value)).toEqual(out.value);
        expect(got!.key).toBe(out.key);
        expect(got!.headers).toEqual(out.headers ?? {});
        expect(got!.schemaId).toBeGreaterThan(0);
        expect(got!.timestamp).toBeGreaterThan(Date.now() - 120_000);
      }
      // TopicNameStrategy: each topic's value schema is registered under `<topic>-value`.
      const subjects = (await (await fetch(`${backend.registryUrl}/subjects`)).json()) as string[];
      for (const topic of Object.values(topics)) expect(subjects).toContain(`${topic}-value`);
    });

    test('records of one key land on one partition in publish order, with consecutive offsets', async () => {
      const topic = unique('ordered');
      await log.createTopics([{ topic, partitions: 3 }]);
      const keys = ['k-a', 'k-b', 'k-c', 'k-d', 'k-e'];
      const outgoing = Array.from({ length: 40 }, (_, n) => ({
        topic,
        key: keys[n % keys.length]!,
        value: sampleDelta(n, keys[n % keys.length]),
        schema: schemas.DeltaEnvelope,
      }));
      const published = [...(await log.publish(outgoing.slice(0, 20))), ...(await log.publish(outgoing.slice(20)))];
      for (const key of keys) {
        const mine = published.filter((_, i) => outgoing[i]!.key === key);
        expect(new Set(mine.map((p) => p.partition)).size).toBe(1);
      }
      const byPartition = new Map<number, bigint[]>();
      for (const p of published) byPartition.set(p.partition, [...(byPartition.get(p.partition) ?? []), BigInt(p.offset)]);
      for (const offsets of byPartition.values()) expect(offsets).toEqual(offsets.map((_, i) => offsets[0]! + BigInt(i)));

      const collector = new Collector<DeltaEnvelope>();
      await subscribe([topic], collector);
      await collector.count(outgoing.length);
      for (const key of keys) {
        const seen = collector.records.filter((r) => r.key === key).map((r) => r.value.id);
        expect(seen).toEqual(outgoing.filter((o) => o.key === key).map((o) => o.value.id));
      }
    });

    test('offsets are committed only after the handler resolved: a failed batch comes again, a restarted group resumes', async () => {
      const topic = unique('atleastonce');
      await log.createTopics([{ topic }]);
      const groupId = unique('group');
      await log.publish([1, 2, 3].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));

      let failures = 0;
      const seen: string[] = [];
      const collector = new Collector<DeltaEnvelope>();
      const sub = await log.subscribe<DeltaEnvelope>({
        groupId,
        topics: [topic],
        handleBatch: async (batch) => {
          if (failures === 0) {
            failures += 1;
            throw new Error('handler failed once');
          }
          seen.push(...batch.records.map((r) => r.offset));
          await collector.handle(batch);
        },
      });
      subscriptions.push(sub);
      await collector.count(3);
      expect(failures).toBe(1);
      expect(seen).toEqual(['0', '1', '2']);
      await sub.stop();

      await log.publish([4, 5].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      const resumed = new Collector<DeltaEnvelope>();
      await subscribe([topic], resumed, groupId);
      await resumed.count(2);
      expect(resumed.records.map((r) => r.offset)).toEqual(['3', '4']);
    });

    test('poison bytes go to the rejections topic and the consumer keeps going', async () => {
      const topic = unique('poisoned');
      await log.createTopics([{ topic }]);
      const good = (n: number) => ({ topic, key: `k-${n}`, value: sampleDelta(n), schema: schemas.DeltaEnvelope });
      await log.publish([good(1)]);

      const wrongMagic = Buffer.from([1, 0, 0, 0, 1, 2, 3]);
      const unknownId = Buffer.from([0, 0x7f, 0, 0, 1, 2, 65]);
      const codec = new ValueCodec({ registryUrl: backend.registryUrl });
      const encoded = await codec.encode(`${topic}-value`, schemas.DeltaEnvelope, sampleDelta(2));
      // Read where it lies in a stored batch, a value must end where its record says: neither short nor long.
      const truncated = encoded.subarray(0, 9);
      const trailing = Buffer.concat([encoded, Buffer.from([0, 0])]);
      const producer = rawKafka().producer();
      await producer.connect();
      await producer.send({
        topic,
        messages: [
          { key: 'bad-magic', value: wrongMagic },
          { key: 'bad-id', value: unknownId },
          { key: 'bad-avro', value: truncated },
          { key: 'plain-json', value: Buffer.from('{"id":"d-9"}') },
          { key: 'trailing', value: trailing },
        ],
      });
      await producer.disconnect();
      await log.publish([good(3)]);

      const collector = new Collector<DeltaEnvelope>();
      await subscribe([topic], collector);
      await collector.count(2);
      expect(collector.records.map((r) => r.offset)).toEqual(['0', '6']);
      expect(collector.batches.reduce((n, b) => n + b.rejected, 0)).toBe(5);

      const refusals = new Collector<Rejection>();
      await subscribe([rejectionsTopic], refusals);
      await refusals.count(5);
      const byKey = new Map(refusals.records.map((r) => [r.key, plain(r.value) as Rejection]));
      expect(byKey.get('bad-magic')).toMatchObject({
        stage: 'decode',
        reason: 'DECODE_MAGIC_BYTE',
        source: { topic, partition: 0, offset: 1, key: 'bad-magic' },
        raw: wrongMagic.toString('base64'),
        deltaId: null,
      });
      expect(byKey.get('bad-id')).toMatchObject({ reason: 'DECODE_UNKNOWN_SCHEMA', source: { offset: 2 }, raw: unknownId.toString('base64') });
      expect(byKey.get('bad-avro')).toMatchObject({ reason: 'DECODE_INVALID_AVRO', source: { offset: 3 } });
      expect(byKey.get('plain-json')).toMatchObject({ reason: 'DECODE_MAGIC_BYTE', source: { offset: 4 } });
      expect(byKey.get('trailing')).toMatchObject({ reason: 'DECODE_INVALID_AVRO', source: { offset: 5 }, raw: trailing.toString('base64') });

      // Still consuming after the poison: a record published now arrives.
      await log.publish([good(4)]);
      await collector.count(3);
      expect(collector.records.at(-1)?.offset).toBe('7');
    });

    test('replay reads from earliest, from offsets and from a timestamp, and stops at the end offsets it began with', async () => {
      const topic = unique('replayed');
      await log.createTopics([{ topic, partitions: 2 }]);
      const t0 = Date.now() - 60_000;
      const outgoing = Array.from({ length: 10 }, (_, n) => ({
        topic,
        key: `k-${n % 4}`,
        value: sampleDelta(n),
        schema: schemas.DeltaEnvelope,
        timestamp: t0 + n * 1000,
      }));
      const published = await log.publish(outgoing);

      const all = new Collector<DeltaEnvelope>();
      const result = await log.replay<DeltaEnvelope>({ topic, handleBatch: all.handle });
      expect(result.records).toBe(10);
      expect(result.rejected).toBe(0);
      expect([...result.endOffsets].sort((a, b) => a.partition - b.partition)).toEqual(
        (await log.topicOffsets(topic)).map((p) => ({ partition: p.partition, offset: p.high })),
      );
      expect(all.records.map((r) => r.value.id).sort()).toEqual(outgoing.map((o) => o.value.id).sort());

      // From offsets: partition 0 from its second record, the other partition from its start.
      const p0 = published.filter((p) => p.partition === 0);
      const fromOffsets = new Collector<DeltaEnvelope>();
      const second = await log.replay<DeltaEnvelope>({
        topic,
        from: { kind: 'offsets', offsets: [{ partition: 0, offset: p0[1]!.offset }] },
        handleBatch: fromOffsets.handle,
      });
      expect(second.records).toBe(10 - 1);
      expect(fromOffsets.records.some((r) => r.partition === 0 && r.offset === p0[0]!.offset)).toBe(false);

      // From a timestamp: records 6..9.
      const fromTime = new Collector<DeltaEnvelope>();
      const third = await log.replay<DeltaEnvelope>({ topic, from: { kind: 'timestamp', timestamp: t0 + 6000 }, handleBatch: fromTime.handle });
      expect(third.records).toBe(4);
      expect(fromTime.records.map((r) => r.value.id).sort()).toEqual(
        outgoing
          .slice(6)
          .map((o) => o.value.id)
          .sort(),
      );
      expect(fromTime.records.every((r) => r.timestamp >= t0 + 6000)).toBe(true);
    });

    test('replay of an empty topic ends at once; records published during a replay are left out', async () => {
      const topic = unique('replay-edge');
      await log.createTopics([{ topic }]);
      expect(await log.replay({ topic, handleBatch: async () => undefined })).toEqual({ records: 0, rejected: 0, endOffsets: [{ partition: 0, offset: '0' }] });

      await log.publish([1, 2].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      let published = false;
      const result = await log.replay<DeltaEnvelope>({
        topic,
        handleBatch: async () => {
          if (!published) {
            published = true;
            await log.publish([{ topic, key: 'k', value: sampleDelta(3), schema: schemas.DeltaEnvelope }]);
          }
        },
      });
      expect(result.records).toBe(2);
      expect(result.endOffsets).toEqual([{ partition: 0, offset: '2' }]);
    });

    test('replay skips undecodable records and reports them without publishing them again', async () => {
      const topic = unique('replay-poison');
      await log.createTopics([{ topic }]);
      await log.publish([{ topic, key: 'k', value: sampleDelta(1), schema: schemas.DeltaEnvelope }]);
      const producer = rawKafka().producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'junk', value: Buffer.from('junk') }] });
      await producer.disconnect();
      await log.publish([{ topic, key: 'k', value: sampleDelta(2), schema: schemas.DeltaEnvelope }]);

      const reported: Rejection[] = [];
      const collector = new Collector<DeltaEnvelope>();
      const result = await log.replay<DeltaEnvelope>({ topic, handleBatch: collector.handle, onRejected: (r) => void reported.push(r) });
      expect(result).toMatchObject({ records: 2, rejected: 1 });
      expect(reported).toEqual([
        expect.objectContaining({ stage: 'decode', reason: 'DECODE_MAGIC_BYTE', source: { topic, partition: 0, offset: 1, key: 'junk' } }),
      ]);
      expect(await log.topicOffsets(rejectionsTopic)).toEqual([{ partition: 0, low: '0', high: '0' }]);
    });

    test('a reader schema decodes older records with the defaults of fields added since (BACKWARD evolution)', async () => {
      const topic = unique('evolved');
      await log.createTopics([{ topic }]);
      const v1 = recordSchema<{ id: string }>({ type: 'record', name: 'Thing', namespace: 'dev.deltabroker.test', fields: [{ name: 'id', type: 'string' }] });
      const v2 = recordSchema<{ id: string; colour: string }>({
        type: 'record',
        name: 'Thing',
        namespace: 'dev.deltabroker.test',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'colour', type: 'string', default: 'blue' },
        ],
      });
      await log.publish([{ topic, key: 'a', value: { id: 'a' }, schema: v1 }]);
      await log.publish([{ topic, key: 'b', value: { id: 'b', colour: 'red' }, schema: v2 }]);
      const collector = new Collector<{ id: string; colour: string }>();
      await subscribe([topic], collector, unique('group'), { readerSchema: v2 });
      await collector.count(2);
      expect(collector.records.map((r) => plain(r.value))).toEqual([
        { id: 'a', colour: 'blue' },
        { id: 'b', colour: 'red' },
      ]);
      expect(collector.records[0]!.schemaId).not.toBe(collector.records[1]!.schemaId);
    });

    test('two consumer groups each receive every record', async () => {
      const topic = unique('fanout');
      await log.createTopics([{ topic, partitions: 2 }]);
      await log.publish([1, 2, 3, 4].map((n) => ({ topic, key: `k-${n}`, value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      const first = new Collector();
      const second = new Collector();
      await subscribe([topic], first);
      await subscribe([topic], second);
      await Promise.all([first.count(4), second.count(4)]);
      expect(first.records).toHaveLength(4);
      expect(second.records).toHaveLength(4);
    });

    test('onAssigned runs before any record of its partitions is handed over, again after it failed, and at every new assignment', async () => {
      const topic = unique('assigned');
      await log.createTopics([{ topic, partitions: 2 }]);
      await log.publish([1, 2, 3, 4].map((n) => ({ topic, key: `k-${n}`, value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      const groupId = unique('group');
      const calls: { partitions: string[]; recordsBefore: number }[] = [];
      const collector = new Collector();
      let failOnce = true;
      const onAssigned = async (partitions: readonly { topic: string; partition: number }[]): Promise<void> => {
        calls.push({ partitions: partitions.map((p) => `${p.topic}/${p.partition}`).sort(), recordsBefore: collector.records.length });
        // The partitions must stay held while this runs: nothing may be handed over meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (failOnce) {
          failOnce = false;
          throw new Error('state store not reachable yet');
        }
      };
      await subscribe([topic], collector, groupId, { onAssigned });
      await collector.count(4);
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(calls[0]).toEqual({ partitions: [`${topic}/0`, `${topic}/1`], recordsBefore: 0 });
      expect(calls[1]).toEqual({ partitions: [`${topic}/0`, `${topic}/1`], recordsBefore: 0 });
      const before = calls.length;
      // A second member joins: the group's partitions are assigned anew, and each member prepares what it is given.
      const second = new Collector();
      const secondCalls: string[][] = [];
      await subscribe([topic], second, groupId, {
        onAssigned: async (partitions: readonly { topic: string; partition: number }[]) =>
          void secondCalls.push(partitions.map((p) => `${p.topic}/${p.partition}`)),
      });
      await eventually(
        async () => ({ first: calls.length - before, second: secondCalls.length }),
        (n) => n.first > 0 && n.second > 0,
        WAIT_MS,
      );
    });

    test('onAssigned may answer where partitions start, behind or ahead of the group: their first batch starts there, and the group moves there', async () => {
      const topic = unique('assigned-start');
      await log.createTopics([{ topic, partitions: 2 }]);
      const publishTo = (partition: number, ns: number[]) =>
        log.publish(ns.map((n) => ({ topic, partition, key: `k-${n}`, value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      await publishTo(0, [1, 2, 3, 4, 5, 6]);
      await publishTo(1, [7, 8, 9, 10]);
      const groupId = unique('group');
      const all = new Collector<DeltaEnvelope>();
      const first = await subscribe([topic], all, groupId);
      await all.count(10);
      await first.stop();
      // The group has read everything; a consumer whose own positions say otherwise starts from those: partition 0
      // behind the group (offset 2), partition 1 ahead of where a new group would begin, at its end (4).
      const starts = new Collector<DeltaEnvelope>();
      const second = await subscribe([topic], starts, groupId, {
        onAssigned: async () => [
          { topic, partition: 0, offset: '2' },
          { topic, partition: 1, offset: '4' },
        ],
      });
      await starts.count(4);
      await publishTo(1, [11]);
      await starts.count(5);
      const offsetsOf = (c: Collector<DeltaEnvelope>, partition: number) => c.records.filter((r) => r.partition === partition).map((r) => r.offset);
      expect(offsetsOf(starts, 0)).toEqual(['2', '3', '4', '5']);
      expect(offsetsOf(starts, 1)).toEqual(['4']);
      await second.stop();
      // The start became the group's position: a member without onAssigned goes on from there.
      await publishTo(0, [12]);
      const after = new Collector<DeltaEnvelope>();
      await subscribe([topic], after, groupId);
      await after.count(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(after.records.map((r) => `${r.partition}/${r.offset}`)).toEqual(['0/6']);
    });

    test('a handler answering seek gets the partition again from that offset, its batch uncommitted, and the group moves there', async () => {
      const topic = unique('seek');
      await log.createTopics([{ topic }]);
      await log.publish([1, 2, 3, 4, 5].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      const groupId = unique('group');
      const handed: string[][] = [];
      const collector = new Collector<DeltaEnvelope>();
      let sought = false;
      const sub = await log.subscribe<DeltaEnvelope>({
        groupId,
        topics: [topic],
        handleBatch: async (batch) => {
          handed.push(batch.records.map((r) => r.offset));
          // The first batch that reaches offset 3 asks for the partition again from offset 1.
          if (!sought && batch.records.some((r) => r.offset === '3')) {
            sought = true;
            return { seek: '1' };
          }
          await collector.handle(batch);
        },
      });
      subscriptions.push(sub);
      await collector.until(() => collector.records.some((r) => r.offset === '4'), 'offset 4');
      expect(sought).toBe(true);
      // Handed over after the seek: offsets 1 to 4 in order, each once.
      const afterSeek = handed.slice(handed.findIndex((offsets) => offsets.includes('3')) + 1).flat();
      expect(afterSeek).toEqual(['1', '2', '3', '4']);
      await sub.stop();
      await log.publish([{ topic, key: 'k', value: sampleDelta(6), schema: schemas.DeltaEnvelope }]);
      const resumed = new Collector<DeltaEnvelope>();
      await subscribe([topic], resumed, groupId);
      await resumed.count(1);
      expect(resumed.records.map((r) => r.offset)).toEqual(['5']);
    });

    test('a subscription stopped while onAssigned still runs stops cleanly: nothing fails once onAssigned ends', async () => {
      const topic = unique('assigned-stop');
      await log.createTopics([{ topic }]);
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (started = resolve));
      let finish: () => void = () => undefined;
      const onAssigned = (): Promise<void> => {
        started();
        return new Promise((resolve) => (finish = resolve));
      };
      const unhandled: unknown[] = [];
      const note = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', note);
      try {
        const sub = await subscribe([topic], new Collector(), unique('group'), { onAssigned });
        await running;
        // An adapter may let the stop wait for onAssigned; one that does not has stopped by the time it ends.
        const stopping = sub.stop();
        await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, 1000))]);
        finish();
        await stopping;
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', note);
      }
    });

    test('publishing to a topic that does not exist fails and writes nothing, not even to the topics that exist', async () => {
      const topic = unique('exists');
      await log.createTopics([{ topic }]);
      const missing = unique('missing');
      await expect(
        log.publish([
          { topic, key: 'k', value: sampleDelta(1), schema: schemas.DeltaEnvelope },
          { topic: missing, key: 'k', value: sampleDelta(2), schema: schemas.DeltaEnvelope },
        ]),
      ).rejects.toThrow();
      expect(await log.topicOffsets(topic)).toEqual([{ partition: 0, low: '0', high: '0' }]);
      await expect(log.topicOffsets(missing)).rejects.toThrow();
    });

    test('a value that breaks its schema fails the publish and writes nothing', async () => {
      const topic = unique('invalid');
      await log.createTopics([{ topic }]);
      const broken = { ...sampleDelta(1), tenant: 42 } as unknown as DeltaEnvelope;
      await expect(
        log.publish([
          { topic, key: 'k', value: sampleDelta(2), schema: schemas.DeltaEnvelope },
          { topic, key: 'k', value: broken, schema: schemas.DeltaEnvelope },
        ]),
      ).rejects.toThrow();
      expect(await log.topicOffsets(topic)).toEqual([{ partition: 0, low: '0', high: '0' }]);
    });

    test('start: latest skips what a new group finds in the topic; joined resolves once partitions are assigned', async () => {
      const topic = unique('latest');
      await log.createTopics([{ topic }]);
      await log.publish([1, 2].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      const collector = new Collector<DeltaEnvelope>();
      const sub = await subscribe([topic], collector, unique('group'), { start: 'latest' });
      await sub.joined;
      const [fresh] = await log.publish([{ topic, key: 'k', value: sampleDelta(3), schema: schemas.DeltaEnvelope }]);
      await collector.count(1);
      expect(collector.records.map((r) => r.offset)).toEqual([fresh!.offset]);
    });

    test('commitPositions: false moves no position: the group, joined again, reads from its start again', async () => {
      const topic = unique('uncommitted');
      await log.createTopics([{ topic }]);
      await log.publish([1, 2, 3].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      const groupId = unique('group');
      const first = new Collector<DeltaEnvelope>();
      const sub = await subscribe([topic], first, groupId, { commitPositions: false });
      await first.count(3);
      await sub.stop();
      const again = new Collector<DeltaEnvelope>();
      await subscribe([topic], again, groupId, { commitPositions: false });
      await again.count(3);
      expect(again.records.map((r) => r.offset)).toEqual(['0', '1', '2']);
    });

    test('partitionsConsumedConcurrently: 2 hands two partitions over at once; each partition stays in order', async () => {
      const topic = unique('concurrent');
      await log.createTopics([{ topic, partitions: 2 }]);
      const records = [0, 1].flatMap((partition) =>
        [1, 2, 3].map((n) => ({ topic, partition, key: `p${partition}`, value: sampleDelta(partition * 10 + n), schema: schemas.DeltaEnvelope })),
      );
      await log.publish(records);
      // The first batch of each partition waits until the other partition's first batch is in hand too: with one
      // partition at a time this never happens.
      const started = new Set<number>();
      let bothStarted: () => void = () => undefined;
      const both = new Promise<void>((resolve) => (bothStarted = resolve));
      const collector = new Collector<DeltaEnvelope>();
      const sub = await log.subscribe<DeltaEnvelope>({
        groupId: unique('group'),
        topics: [topic],
        partitionsConsumedConcurrently: 2,
        handleBatch: async (batch) => {
          started.add(batch.partition);
          if (started.size === 2) bothStarted();
          await both;
          await collector.handle(batch);
        },
      });
      subscriptions.push(sub);
      await collector.count(6);
      for (const partition of [0, 1]) {
        expect(collector.records.filter((r) => r.partition === partition).map((r) => r.offset)).toEqual(['0', '1', '2']);
      }
    });

    test('stop() lets the batch in hand finish and commits it; the group goes on after it', async () => {
      const topic = unique('stopping');
      await log.createTopics([{ topic }]);
      const groupId = unique('group');
      await log.publish([1, 2].map((n) => ({ topic, key: 'k', value: sampleDelta(n), schema: schemas.DeltaEnvelope })));
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let inHand: () => void = () => undefined;
      const handling = new Promise<void>((resolve) => (inHand = resolve));
      const finished: string[] = [];
      const sub = await log.subscribe<DeltaEnvelope>({
        groupId,
        topics: [topic],
        handleBatch: async (batch) => {
          inHand();
          await released;
          finished.push(...batch.records.map((r) => r.offset));
        },
      });
      await handling;
      const stopped = sub.stop();
      release();
      await stopped;
      expect(finished).toEqual(['0', '1']);

      await log.publish([{ topic, key: 'k', value: sampleDelta(3), schema: schemas.DeltaEnvelope }]);
      const resumed = new Collector<DeltaEnvelope>();
      await subscribe([topic], resumed, groupId);
      await resumed.count(1);
      expect(resumed.records.map((r) => r.offset)).toEqual(['2']);
    });
  });
}
