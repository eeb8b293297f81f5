import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';

/**
 * Log compaction read by real clients: kafkajs and kcat (librdkafka) read a compacted topic from the start and
 * get the latest value of every key at the offset it was written at, across the gaps the cleaner left.
 */
const KCAT = '/usr/bin/kcat';
const TOPIC = 'compacted.entities';
const KEYS = 20;
const ROUNDS = 5;

function kcatRead(bootstrap: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    execFile(KCAT, ['-b', bootstrap, '-C', '-t', TOPIC, '-e', '-q', '-X', 'check.crcs=true', '-f', '%o %k %s\\n'], { timeout: 20_000 }, (err, stdout) =>
      err ? reject(new Error(`kcat failed: ${err.message}`)) : resolve(stdout.split('\n').filter((l) => l.length > 0)),
    ),
  );
}

describe('embedded kafka: log compaction', () => {
  let broker: TestBroker;
  /** What was written: offset → "key value". */
  const written = new Map<number, string>();
  beforeAll(async () => {
    broker = await startTestBroker({ retentionCheckIntervalMs: 100 });
    const admin = broker.client().admin();
    await admin.connect();
    const configEntries = Object.entries({ 'cleanup.policy': 'compact', 'segment.bytes': '600', 'min.cleanable.dirty.ratio': '0.01' }).map(([name, value]) => ({
      name,
      value,
    }));
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, configEntries }] });
    await admin.disconnect();
    const producer = broker.client('writer').producer();
    await producer.connect();
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < KEYS; k++) {
        const [meta] = await producer.send({ topic: TOPIC, messages: [{ key: `k${k}`, value: `v${round}` }] });
        written.set(Number(meta!.baseOffset), `k${k} v${round}`);
      }
    }
    await producer.disconnect();
  }, 60_000);
  afterAll(() => broker.stop());

  /** Latest value per key among records read, checking each was written at the offset it is read at. */
  function latestByKey(read: string[]): Map<string, string> {
    const latest = new Map<string, string>();
    for (const line of read) {
      const [offset, key, value] = line.split(' ');
      expect(written.get(Number(offset))).toBe(`${key} ${value}`);
      latest.set(key!, value!);
    }
    return latest;
  }
  const expected = new Map(Array.from({ length: KEYS }, (_, k) => [`k${k}`, `v${ROUNDS - 1}`]));

  (fs.existsSync(KCAT) ? test : test.skip)(
    'kcat reads the latest value of every key, at its offset, from fewer records',
    async () => {
      // The cleaner runs in the background (every 100 ms here): read until it has compacted.
      const until = Date.now() + 20_000;
      let read = await kcatRead(broker.kafka.brokers[0]!);
      while (read.length >= written.size && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 200));
        read = await kcatRead(broker.kafka.brokers[0]!);
      }
      expect(read.length).toBeLessThan(written.size);
      expect(latestByKey(read)).toEqual(expected);
      expect(Number(read[0]!.split(' ')[0])).toBeGreaterThan(0); // the first records were compacted away
    },
    60_000,
  );

  test('kafkajs reads the same from the beginning; ListOffsets earliest stays 0, latest the end', async () => {
    const admin = broker.client().admin();
    await admin.connect();
    expect(await admin.fetchTopicOffsets(TOPIC)).toEqual([expect.objectContaining({ partition: 0, low: '0', high: String(KEYS * ROUNDS) })]);
    await admin.disconnect();
    const consumer = broker.client('reader').consumer({ groupId: 'compacted-reader', ...FAST_GROUP });
    const read: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    let reachedEnd = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        read.push(`${message.offset} ${message.key!.toString()} ${message.value!.toString()}`);
        if (Number(message.offset) === KEYS * ROUNDS - 1) reachedEnd = true;
      },
    });
    await waitFor(() => reachedEnd, 20_000, 'kafkajs to reach the last offset');
    await consumer.disconnect();
    expect(read.length).toBeLessThan(written.size);
    expect(latestByKey(read)).toEqual(expected);
  }, 60_000);
});
