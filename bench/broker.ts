import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Kafka, logLevel } from 'kafkajs';
import { type FsyncPolicy, startEmbeddedKafka } from '../src/embedded/kafka';

/**
 * Embedded broker throughput with kafkajs: produce and consume of 1 KiB values in kafkajs batches, and the
 * ratio of produce MB/s to a raw sequential append+fsync of the same bytes, in the same chunk sizes, to a
 * file on the same disk, measured in the same run. The broker runs in a worker thread, as it would beside
 * a service whose kafkajs clients keep the main thread busy.
 * Usage: npx tsx bench/broker.ts [messages=30000] [batch=100] [in-flight sends=4] [fsync=always]
 */
const MESSAGES = Number(process.argv[2] ?? 30_000);
const BATCH = Number(process.argv[3] ?? 100);
const IN_FLIGHT = Number(process.argv[4] ?? 4);
const FSYNC = (process.argv[5] ?? 'always') as FsyncPolicy;
const VALUE_BYTES = 1024;
const TOPIC = 'bench';
const PARTITIONS = 3;

const mb = (bytes: number): number => bytes / (1024 * 1024);

async function produce(kafka: Kafka): Promise<{ seconds: number; bytes: number }> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const value = randomBytes(VALUE_BYTES);
  const batches = Math.ceil(MESSAGES / BATCH);
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < batches) {
      const b = next++;
      const count = Math.min(BATCH, MESSAGES - b * BATCH);
      await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ key: `k${(b * BATCH + i) % 1000}`, value })) });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await producer.disconnect();
  return { seconds, bytes: MESSAGES * VALUE_BYTES };
}

async function consume(kafka: Kafka): Promise<{ seconds: number; bytes: number }> {
  const consumer = kafka.consumer({ groupId: 'bench-reader', maxWaitTimeInMs: 100, sessionTimeout: 6000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let seen = 0;
  let bytes = 0;
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve) => {
    void consumer.run({
      autoCommit: true,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) bytes += m.value?.length ?? 0;
        seen += batch.messages.length;
        if (seen >= MESSAGES) resolve();
      },
    });
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await consumer.disconnect();
  return { seconds, bytes };
}

/** The same volume written the way the broker must at best: sequential appends, fsync per produce request. */
function rawAppendFsync(dir: string, chunkBytes: number, totalBytes: number): number {
  const file = path.join(dir, 'raw-baseline.bin');
  const fd = fs.openSync(file, 'w');
  const chunk = randomBytes(chunkBytes);
  const started = process.hrtime.bigint();
  let position = 0;
  for (let written = 0; written < totalBytes; written += chunkBytes) {
    position += fs.writeSync(fd, chunk, 0, chunk.length, position);
    if (FSYNC === 'always') fs.fdatasyncSync(fd);
  }
  fs.fdatasyncSync(fd);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  fs.closeSync(fd);
  fs.rmSync(file);
  return mb(totalBytes) / seconds;
}

/** Starts the broker in a worker thread; resolves with its bootstrap address and a stop function. */
function startBrokerThread(dataDir: string): Promise<{ brokers: string[]; stop: () => Promise<void> }> {
  // A TypeScript entry point needs tsx's loader registered inside the thread first.
  const bootstrap = `require('tsx/cjs/api').register(); require(${JSON.stringify(__filename)});`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { dataDir, fsync: FSYNC } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m: { brokers: string[] }) =>
      resolve({
        brokers: m.brokers,
        stop: () =>
          new Promise<void>((done) => {
            worker.once('exit', () => done());
            worker.postMessage('stop');
          }),
      }),
    );
  });
}

async function brokerThread(): Promise<void> {
  const { dataDir, fsync } = workerData as { dataDir: string; fsync: FsyncPolicy };
  const broker = await startEmbeddedKafka({ dataDir, port: 0, fsync });
  parentPort!.once('message', () => void broker.stop().then(() => process.exit(0)));
  parentPort!.postMessage({ brokers: broker.brokers });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-broker-'));
  const broker = await startBrokerThread(dataDir);
  try {
    const kafka = new Kafka({ clientId: 'bench', brokers: broker.brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
    await admin.disconnect();

    // Each kafkajs send of BATCH values spreads over the partitions: one stored batch (≈ BATCH/PARTITIONS values)
    // per partition. The baseline runs before and after the broker's turn (disks drift); the mean is used.
    const chunk = Math.round((BATCH / PARTITIONS) * (VALUE_BYTES + 20));
    const rawBefore = rawAppendFsync(dataDir, chunk, MESSAGES * VALUE_BYTES);
    const p = await produce(kafka);
    const c = await consume(kafka);
    const raw = (rawBefore + rawAppendFsync(dataDir, chunk, p.bytes)) / 2;

    const produceMBs = mb(p.bytes) / p.seconds;
    const line = (what: string, r: { seconds: number; bytes: number }): string =>
      `${what.padEnd(8)} ${(MESSAGES / r.seconds).toFixed(0).padStart(8)} msg/s ${(mb(r.bytes) / r.seconds).toFixed(1).padStart(7)} MB/s  (${r.seconds.toFixed(2)} s)`;
    console.log(
      `embedded broker, kafkajs, ${MESSAGES} × ${VALUE_BYTES} B values, sends of ${BATCH}, ${IN_FLIGHT} in flight, acks=-1, ${PARTITIONS} partitions, fsync=${FSYNC}`,
    );
    console.log(line('produce', p));
    console.log(line('consume', c));
    console.log(
      `raw sequential append${FSYNC === 'always' ? '+fsync per stored batch' : ', one fsync at the end'}: ${raw.toFixed(1)} MB/s; produce / raw = ${(produceMBs / raw).toFixed(2)}`,
    );
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

(isMainThread ? main() : brokerThread()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
