import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Kafka, logLevel } from 'kafkajs';
import { type FsyncPolicy, startEmbeddedKafka } from '../src/embedded/kafka';
import type { Figure } from './support/figures';

/**
 * Embedded broker throughput with kafkajs: produce and consume of 1 KiB values in kafkajs batches, and the
 * ratio of produce MB/s to a raw sequential append+fsync of the same bytes, in the same chunk sizes, to a
 * file on the same disk, measured in the same run. The broker runs in a worker thread, as it would beside
 * a service whose kafkajs clients keep the main thread busy.
 * Usage: npx tsx bench/broker.ts [messages=30000] [batch=100] [in-flight sends=4] [fsync=always]
 */
export interface BrokerOptions {
  readonly messages: number;
  /** Values per kafkajs send. */
  readonly batch: number;
  /** Sends in flight. */
  readonly inFlight: number;
  readonly fsync: FsyncPolicy;
}

const VALUE_BYTES = 1024;
const TOPIC = 'bench';
const PARTITIONS = 3;

const mb = (bytes: number): number => bytes / (1024 * 1024);

async function produce(kafka: Kafka, { messages, batch, inFlight }: BrokerOptions): Promise<{ seconds: number; bytes: number }> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const value = randomBytes(VALUE_BYTES);
  const batches = Math.ceil(messages / batch);
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < batches) {
      const b = next++;
      const count = Math.min(batch, messages - b * batch);
      await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ key: `k${(b * batch + i) % 1000}`, value })) });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await producer.disconnect();
  return { seconds, bytes: messages * VALUE_BYTES };
}

async function consume(kafka: Kafka, messages: number): Promise<{ seconds: number; bytes: number }> {
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
        if (seen >= messages) resolve();
      },
    });
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await consumer.disconnect();
  return { seconds, bytes };
}

/** The same volume written the way the broker must at best: sequential appends, fsync per produce request. */
function rawAppendFsync(dir: string, chunkBytes: number, totalBytes: number, fsync: FsyncPolicy): number {
  const file = path.join(dir, 'raw-baseline.bin');
  const fd = fs.openSync(file, 'w');
  const chunk = randomBytes(chunkBytes);
  const started = process.hrtime.bigint();
  let position = 0;
  for (let written = 0; written < totalBytes; written += chunkBytes) {
    position += fs.writeSync(fd, chunk, 0, chunk.length, position);
    if (fsync === 'always') fs.fdatasyncSync(fd);
  }
  fs.fdatasyncSync(fd);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  fs.closeSync(fd);
  fs.rmSync(file);
  return mb(totalBytes) / seconds;
}

/** Starts the broker in a worker thread; resolves with its bootstrap address and a stop function. */
function startBrokerThread(dataDir: string, fsync: FsyncPolicy): Promise<{ brokers: string[]; stop: () => Promise<void> }> {
  // A TypeScript entry point needs tsx's loader registered inside the thread first.
  const bootstrap = `require('tsx/cjs/api').register(); require(${JSON.stringify(__filename)});`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { dataDir, fsync } });
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

interface BrokerResult {
  produce: { seconds: number; bytes: number };
  consume: { seconds: number; bytes: number };
  /** Raw sequential append (+fsync per stored batch when fsync=always), MB/s. */
  raw: number;
}

async function measure(o: BrokerOptions): Promise<BrokerResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-broker-'));
  const broker = await startBrokerThread(dataDir, o.fsync);
  try {
    const kafka = new Kafka({ clientId: 'bench', brokers: broker.brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
    await admin.disconnect();

    // Each kafkajs send of BATCH values spreads over the partitions: one stored batch (≈ BATCH/PARTITIONS values)
    // per partition. The baseline runs before and after the broker's turn (disks drift); the mean is used.
    const chunk = Math.round((o.batch / PARTITIONS) * (VALUE_BYTES + 20));
    const rawBefore = rawAppendFsync(dataDir, chunk, o.messages * VALUE_BYTES, o.fsync);
    const p = await produce(kafka, o);
    const c = await consume(kafka, o.messages);
    const raw = (rawBefore + rawAppendFsync(dataDir, chunk, p.bytes, o.fsync)) / 2;
    return { produce: p, consume: c, raw };
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The figures for the one table of bench/run.ts. */
export async function run(o: BrokerOptions): Promise<Figure[]> {
  const r = await measure(o);
  const raw = { name: `raw append${o.fsync === 'always' ? '+fsync per stored batch' : ''}, same chunks`, value: r.raw, unit: 'MB/s' };
  const notes = (x: { seconds: number }) =>
    `${Math.round(o.messages / x.seconds).toLocaleString('en-US')} msg/s; ${o.messages} × 1 KiB, sends of ${o.batch}, ${o.inFlight} in flight, acks=-1, fsync=${o.fsync}`;
  return [
    { name: 'embedded broker: kafkajs produce', value: mb(r.produce.bytes) / r.produce.seconds, unit: 'MB/s', baseline: raw, notes: notes(r.produce) },
    { name: 'embedded broker: kafkajs consume', value: mb(r.consume.bytes) / r.consume.seconds, unit: 'MB/s', baseline: raw, notes: notes(r.consume) },
  ];
}

async function main(): Promise<void> {
  const o: BrokerOptions = {
    messages: Number(process.argv[2] ?? 30_000),
    batch: Number(process.argv[3] ?? 100),
    inFlight: Number(process.argv[4] ?? 4),
    fsync: (process.argv[5] ?? 'always') as FsyncPolicy,
  };
  const { produce: p, consume: c, raw } = await measure(o);
  const produceMBs = mb(p.bytes) / p.seconds;
  const line = (what: string, r: { seconds: number; bytes: number }): string =>
    `${what.padEnd(8)} ${(o.messages / r.seconds).toFixed(0).padStart(8)} msg/s ${(mb(r.bytes) / r.seconds).toFixed(1).padStart(7)} MB/s  (${r.seconds.toFixed(2)} s)`;
  console.log(
    `embedded broker, kafkajs, ${o.messages} × ${VALUE_BYTES} B values, sends of ${o.batch}, ${o.inFlight} in flight, acks=-1, ${PARTITIONS} partitions, fsync=${o.fsync}`,
  );
  console.log(line('produce', p));
  console.log(line('consume', c));
  console.log(
    `raw sequential append${o.fsync === 'always' ? '+fsync per stored batch' : ', one fsync at the end'}: ${raw.toFixed(1)} MB/s; produce / raw = ${(produceMBs / raw).toFixed(2)}`,
  );
}

const fail = (err: unknown): void => {
  console.error(err);
  process.exit(1);
};
// In the broker's worker thread this module runs the broker; in the main thread only when run as a script.
if (!isMainThread) brokerThread().catch(fail);
else if (require.main === module) main().catch(fail);
