/**
 * What the in-process adapter does beyond the shared contract: it answers a publish only once the broker made it
 * durable (fsync=always), concurrent publishes share fsyncs, its group members leave cleanly, and it stops with
 * the broker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { PartitionLog } from '../../../src/embedded/kafka/storage/partition-log';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { openInProcessWriteLog, type InProcessWriteLog } from '../../../src/log/in-process';
import { loadSchemas, type DeltaEnvelope } from '../../../src/log/schemas';
import { sampleDelta } from './write-log-contract';
import { eventually } from '../../support/topics';

const schemas = loadSchemas();
const record = (topic: string, n: number) => ({ topic, key: `k-${n}`, value: sampleDelta(n), schema: schemas.DeltaEnvelope });

describe('in-process write log on the embedded broker', () => {
  let dir: string;
  let kafka: EmbeddedKafka;
  let registry: EmbeddedRegistry;
  let log: InProcessWriteLog;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'in-process-log-'));
    kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0, autoCreateTopics: false, fsync: 'always' });
    registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
    log = await openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await log.close();
    await registry.stop();
    await kafka.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a publish resolves after the fsync that makes it durable, and 50 concurrent publishes share a few fsyncs', async () => {
    await log.createTopics([{ topic: 'durable', partitions: 1 }]);
    await log.publish([record('durable', 0)]); // the schema registered outside the count
    const syncs = jest.spyOn(PartitionLog.prototype, 'sync');
    const partition = kafka.parts.logs.partition('durable', 0)!;
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => {
        const [where] = await log.publish([record('durable', n + 1)]);
        // Under fsync=always the high watermark moves only after the fsync: it already covers this record.
        return { offset: Number(where!.offset), highWatermark: partition.highWatermark };
      }),
    );
    for (const a of answers) expect(a.highWatermark).toBeGreaterThan(a.offset);
    expect(answers.map((a) => a.offset).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, n) => n + 1));
    expect(syncs.mock.calls.length).toBeGreaterThan(0);
    expect(syncs.mock.calls.length).toBeLessThan(10);
  });

  test('a readWhileCommitting group gets a record once its group commit starts, one appended during that commit at the next; other groups and the publisher after the fsync', async () => {
    await log.createTopics([{ topic: 'early', partitions: 1 }]);
    await log.publish([record('early', 0)]); // the schema registered, offset 0 durable
    const seen = (groupId: string, readWhileCommitting: boolean) => {
      const offsets: string[] = [];
      const subscription = log.subscribe<DeltaEnvelope>({
        groupId,
        topics: ['early'],
        readWhileCommitting,
        handleBatch: async (batch) => {
          offsets.push(...batch.records.map((r) => r.offset));
        },
      });
      return { offsets, subscription };
    };
    const early = seen('early-reader', true);
    const durable = seen('durable-reader', false);
    for (const s of [early, durable]) await (await s.subscription).joined;
    await eventually(
      async () => early.offsets.length === 1 && durable.offsets.length === 1,
      (met) => met,
    );

    let releaseFsync = (): void => undefined;
    const held = new Promise<void>((resolve) => (releaseFsync = resolve));
    const sync = PartitionLog.prototype.sync;
    jest.spyOn(PartitionLog.prototype, 'sync').mockImplementation(async function (this: PartitionLog) {
      await held;
      return sync.call(this);
    });
    let published = false;
    const publishing = log.publish([record('early', 1)]).then(() => (published = true));
    await eventually(
      async () => early.offsets.length === 2,
      (met) => met,
    );
    expect(early.offsets).toEqual(['0', '1']);
    expect(durable.offsets).toEqual(['0']);
    expect(published).toBe(false);
    const partition = kafka.parts.logs.partition('early', 0)!;
    expect(partition.highWatermark).toBe(1);

    // Appended while the first commit is still under way: the next commit covers it, and only its start hands it over.
    const second = log.publish([record('early', 2)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(partition.logEndOffset).toBe(3);
    expect(partition.committingEnd).toBe(2);
    expect(early.offsets).toEqual(['0', '1']);

    releaseFsync();
    await Promise.all([publishing, second]);
    await eventually(
      async () => durable.offsets.length === 3 && early.offsets.length === 3,
      (met) => met,
    );
    expect(early.offsets).toEqual(['0', '1', '2']);
    expect(durable.offsets).toEqual(['0', '1', '2']);
    for (const s of [early, durable]) await (await s.subscription).stop();
  });

  test('a record too big for max.message.bytes is refused before anything is written', async () => {
    await log.createTopics([{ topic: 'small', config: { 'max.message.bytes': '2048' } }]);
    const big = { ...sampleDelta(1), payload: JSON.stringify({ blob: 'x'.repeat(4000) }) };
    await expect(log.publish([record('small', 2), { topic: 'small', key: 'k', value: big, schema: schemas.DeltaEnvelope }])).rejects.toMatchObject({
      code: 'DB_INTERNAL',
      message: expect.stringContaining('max.message.bytes'),
    });
    expect(await log.topicOffsets('small')).toEqual([{ partition: 0, low: '0', high: '0' }]);
    // Records that fit together but not in one batch go out as several batches, offsets in input order.
    const many = Array.from({ length: 12 }, (_, n) => ({
      topic: 'small',
      key: 'same',
      value: { ...sampleDelta(n), payload: 'y'.repeat(500) },
      schema: schemas.DeltaEnvelope,
    }));
    expect((await log.publish(many)).map((p) => p.offset)).toEqual(many.map((_, n) => String(n)));
  });

  test('stop() leaves the group at once; closing the broker ends a subscription, and the closed log refuses to publish', async () => {
    await log.createTopics([{ topic: 'members', partitions: 2 }]);
    const sub = await log.subscribe<DeltaEnvelope>({ groupId: 'g', topics: ['members'], handleBatch: async () => undefined });
    await sub.joined;
    expect(kafka.parts.groups.describe('g')).toMatchObject({ state: 'Stable', members: [expect.stringMatching(/^deltabroker-/)] });
    await sub.stop();
    expect(kafka.parts.groups.describe('g')).toMatchObject({ state: 'Empty', members: [] });

    const second = await log.subscribe<DeltaEnvelope>({ groupId: 'g2', topics: ['members'], handleBatch: async () => undefined });
    await second.joined;
    await kafka.stop();
    await second.stop(); // returns: the broker's stop ended it
    await log.close();
    await expect(log.publish([record('members', 1)])).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
    await expect(log.subscribe({ groupId: 'g3', topics: ['members'], handleBatch: async () => undefined })).rejects.toMatchObject({
      code: 'DB_DEPENDENCY_UNAVAILABLE',
    });
  });

  test('subscribing to a topic that does not exist is an error, as with kafkajs', async () => {
    await expect(log.subscribe({ groupId: 'g', topics: ['nowhere'], handleBatch: async () => undefined })).rejects.toMatchObject({ code: 'DB_INTERNAL' });
  });

  test('groups reading the same batches share one decode; a group starting inside a batch gets only its own offsets', async () => {
    await log.createTopics([{ topic: 'fanout', partitions: 1 }]);
    const published = Array.from({ length: 10 }, (_, n) => record('fanout', n));
    await log.publish(published);
    // The third group resumes inside the stored batch, at offset 4.
    await kafka.parts.groups.commitOffsets('late', [
      { topic: 'fanout', partition: 0, offset: 4, leaderEpoch: -1, metadata: null, commitTimestamp: Date.now() },
    ]);
    const read = async (groupId: string) => {
      const seen: { offset: string; value: DeltaEnvelope }[] = [];
      let done: () => void = () => undefined;
      const all = new Promise<void>((resolve) => (done = resolve));
      const sub = await log.subscribe<DeltaEnvelope>({
        groupId,
        topics: ['fanout'],
        readerSchema: schemas.DeltaEnvelope,
        handleBatch: async (batch) => {
          seen.push(...batch.records.map((r) => ({ offset: r.offset, value: r.value })));
          if (seen.some((r) => r.offset === '9')) done();
        },
      });
      await sub.joined;
      return { sub, seen: all.then(() => seen) };
    };
    // The groups read side by side, as the projectors and emitters do: a batch is kept for the groups subscribed.
    const readers = await Promise.all(['one', 'two', 'late'].map(read));
    const [first, second, late] = await Promise.all(readers.map((r) => r.seen));
    await Promise.all(readers.map((r) => r.sub.stop()));
    expect(first!.map((r) => r.offset)).toEqual(Array.from({ length: 10 }, (_, n) => String(n)));
    expect(first!.map((r) => r.value.id)).toEqual(published.map((p) => p.value.id));
    // The same decoded objects, not equal copies: one group decoded the batch, the others took it.
    second!.forEach((r, i) => expect(r.value).toBe(first![i]?.value));
    expect(late!.map((r) => r.offset)).toEqual(['4', '5', '6', '7', '8', '9']);
    expect(late![0]?.value).toBe(first![4]?.value);
    // A group reading alone later decodes for itself (nothing is kept for readers that are not subscribed).
    const alone = await read('alone');
    const again = await alone.seen;
    await alone.sub.stop();
    expect(again.map((r) => r.value.id)).toEqual(published.map((p) => p.value.id));
    expect(again[0]?.value).not.toBe(first![0]?.value);
  });

  test('maxBytesPerPartition sets how much of a partition one batch holds: a batch per stored batch at the least, everything at once with room', async () => {
    await log.createTopics([{ topic: 'sized', partitions: 1 }]);
    for (let n = 0; n < 6; n++) await log.publish(Array.from({ length: 50 }, (_, i) => record('sized', n * 50 + i))); // six stored batches
    const batchSizes = async (groupId: string, maxBytesPerPartition: number): Promise<number[]> => {
      const sizes: number[] = [];
      let done: () => void = () => undefined;
      const all = new Promise<void>((resolve) => (done = resolve));
      const sub = await log.subscribe({
        groupId,
        topics: ['sized'],
        maxBytesPerPartition,
        handleBatch: async (batch) => {
          sizes.push(batch.records.length);
          if (batch.records.at(-1)?.offset === '299') done();
        },
      });
      await all;
      await sub.stop();
      return sizes;
    };
    expect(await batchSizes('one-byte', 1)).toEqual([50, 50, 50, 50, 50, 50]);
    expect(await batchSizes('roomy', 4 * 1024 * 1024)).toEqual([300]);
    await expect(log.subscribe({ groupId: 'bad', topics: ['sized'], maxBytesPerPartition: 0, handleBatch: async () => undefined })).rejects.toThrow(
      /maxBytesPerPartition/,
    );
  });

  test('a handler answering `settled` gets the next batch at once; the offset waits for it, and a failure redelivers', async () => {
    await log.createTopics([{ topic: 'settling', partitions: 1 }]);
    const committed = () => kafka.parts.groups.offsetStore.get('settle', 'settling', 0)?.offset ?? -1;
    const handed: string[][] = [];
    const settles: { resolve: () => void; reject: (e: Error) => void }[] = [];
    const sub = await log.subscribe<DeltaEnvelope>({
      groupId: 'settle',
      topics: ['settling'],
      readerSchema: schemas.DeltaEnvelope,
      handleBatch: async (batch) => {
        handed.push(batch.records.map((r) => r.offset));
        return { settled: new Promise<void>((resolve, reject) => settles.push({ resolve, reject })) };
      },
    });
    await sub.joined;
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(check()).toBe(true);
    };
    await log.publish([record('settling', 0), record('settling', 1)]);
    await until(() => handed.length === 1);
    await log.publish([record('settling', 2)]);
    // The second batch is handed over while the first is still settling; nothing is committed yet.
    await until(() => handed.length === 2);
    expect(handed).toEqual([['0', '1'], ['2']]);
    expect(committed()).toBe(-1);
    settles[1]?.resolve();
    await new Promise((r) => setTimeout(r, 50));
    expect(committed()).toBe(-1); // the later batch settled, the earlier has not
    settles[0]?.reject(new Error('verdicts not published'));
    // Both batches come again (the member rejoins from the committed offset); this time they settle.
    await until(() => handed.length >= 3);
    expect(handed[2]?.[0]).toBe('0');
    for (const s of settles.slice(2)) s.resolve();
    await until(() => {
      for (const s of settles.slice(2)) s.resolve();
      return committed() === 3;
    });
    await sub.stop();
  });

  test('a position a transaction committed with the batch is not committed again after it', async () => {
    await log.createTopics([
      { topic: 'consumed', partitions: 1 },
      { topic: 'produced', partitions: 1 },
    ]);
    const commits = jest.spyOn(kafka.parts.groups, 'commitOffsets');
    const transactions = await log.openTransactionalPublisher('forward');
    let forwarded = 0;
    const sub = await log.subscribe<DeltaEnvelope>({
      groupId: 'forward',
      topics: ['consumed'],
      readerSchema: schemas.DeltaEnvelope,
      handleBatch: async (batch) => {
        const next = String(Number(batch.records[batch.records.length - 1]!.offset) + 1);
        await transactions.publishAndCommit(
          batch.records.map((r) => ({ topic: 'produced', key: r.key ?? '', value: r.value, schema: schemas.DeltaEnvelope })),
          { groupId: 'forward', positions: [{ topic: 'consumed', partition: 0, offset: next }] },
        );
        forwarded += batch.records.length;
      },
    });
    await sub.joined;
    await log.publish([record('consumed', 0), record('consumed', 1)]);
    await eventually(
      async () => forwarded,
      (n) => n === 2,
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(kafka.parts.groups.offsetStore.get('forward', 'consumed', 0)?.offset).toBe(2);
    // The transaction's own commit, and no second one from the subscription.
    expect(commits.mock.calls.filter(([group]) => group === 'forward')).toHaveLength(1);
    await sub.stop();
    await transactions.close();
  });
});
