import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { type FsyncPolicy, startEmbeddedKafka } from '../src/embedded/kafka';
import { BrokerClientProcess } from './support/broker-client-process';
import type { ClientRun } from './support/broker-clients';
import type { Figure } from './support/figures';
import { kcatAvailable, kcatInput, produceWithKcat } from './support/kcat-producer';
import { measured } from './support/cpu-time';
import { medianBy, spread } from './support/repeated';

/**
 * Embedded broker throughput with kafkajs: produce and consume of 1 KiB values in kafkajs batches, and the
 * ratio of produce MB/s to a raw sequential append+fsync of the same bytes, in the same chunk sizes, to a
 * file on the same disk, measured in the same run. The broker runs in this process; the kafkajs clients in a
 * process of their own (support/broker-client-process.ts), as outside clients would, so the figure does not
 * also carry the client's CPU (before 2026-11-24 the producer shared this process, the broker a worker thread).
 * kafkajs needs more CPU per MB than the broker (see the notes), so a librdkafka producer (kcat, when installed)
 * writes the same records in batches of the same size too: its rate is what the broker's produce path reaches.
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
/** Written first, unmeasured, so neither the client nor the broker is timed while its code is being compiled. */
const WARM_UP_TOPIC = 'bench-warm-up';
const WARM_UP_MESSAGES = 5000;
/** librdkafka's records (kcat), kept apart from the kafkajs consumer's topic. */
const KCAT_TOPIC = 'bench-librdkafka';
/**
 * librdkafka's run writes this many times the kafkajs messages: its 30,000 took about 0.2 s, of which kcat's start
 * and the broker's spawning it are a fixed part, and the ratio of one such run ranged from 0.82 to 1.21.
 */
const KCAT_RUN_FACTOR = 3;
/**
 * librdkafka's runs, each to a topic of its own, in turns with the raw baseline; the median of each is used. One run
 * each moved the ratio from 0.85 to 1.54 between back-to-back benchmark runs on one host.
 */
const KCAT_TURNS = 3;
/** librdkafka's own warm-up: its requests (batch sizes, API versions) take other paths through the broker than kafkajs's. */
const KCAT_WARM_UP_TOPIC = 'bench-librdkafka-warm-up';
const PARTITIONS = 3;

const mb = (bytes: number): number => bytes / (1024 * 1024);
const mbs = (n: number): string => `${n.toFixed(1)} MB/s`;

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

/** A client's run, with the CPU this (the broker's) process spent meanwhile. */
interface Measured extends ClientRun {
  readonly brokerCpuSeconds: number;
}

interface BrokerResult {
  produce: Measured;
  consume: Measured;
  /** librdkafka (kcat) produce, the median of its runs (`rates`, MB/s); absent when kcat is not installed. */
  kcat?: Measured & { readonly rates: number[] };
  /** Raw sequential append (+fsync per stored batch when fsync=always), MB/s: the median of `raws`. */
  raw: number;
  raws: number[];
}

async function withBrokerCpu(work: () => Promise<ClientRun>): Promise<Measured> {
  const { value: run, cpuMicros } = await measured(work);
  return { ...run, brokerCpuSeconds: cpuMicros / 1e6 };
}

async function measure(o: BrokerOptions): Promise<BrokerResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-broker-'));
  const broker = await startEmbeddedKafka({ dataDir, port: 0, fsync: o.fsync });
  const clients = BrokerClientProcess.start();
  try {
    const kafka = new Kafka({ clientId: 'bench-admin', brokers: broker.brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const kcatTopics = Array.from({ length: KCAT_TURNS }, (_, turn) => `${KCAT_TOPIC}-${turn}`);
    await admin.createTopics({ topics: [TOPIC, WARM_UP_TOPIC, KCAT_WARM_UP_TOPIC, ...kcatTopics].map((topic) => ({ topic, numPartitions: PARTITIONS })) });
    await admin.disconnect();

    // Each kafkajs send of BATCH values spreads over the partitions: one stored batch (≈ BATCH/PARTITIONS values)
    // per partition. The baseline runs before the broker's turn and once beside each librdkafka run (disks drift);
    // the median is used.
    const recordsPerBatch = o.batch / PARTITIONS;
    const chunk = Math.round(recordsPerBatch * (VALUE_BYTES + 20));
    const rawBefore = rawAppendFsync(dataDir, chunk, o.messages * VALUE_BYTES, o.fsync);
    const sends = { brokers: broker.brokers, valueBytes: VALUE_BYTES, batch: o.batch, inFlight: o.inFlight };
    await clients.produce({ ...sends, topic: WARM_UP_TOPIC, messages: WARM_UP_MESSAGES });
    const order = { brokers: broker.brokers, topic: TOPIC, messages: o.messages };
    const p = await withBrokerCpu(() => clients.produce({ ...order, ...sends }));
    const c = await withBrokerCpu(() => clients.consume(order));
    const kcatMessages = o.messages * KCAT_RUN_FACTOR;
    const input = kcatAvailable() ? kcatInput(dataDir, kcatMessages, VALUE_BYTES) : undefined;
    const kcatOrder = { brokers: broker.brokers, properties: { 'batch.num.messages': Math.round(recordsPerBatch) } };
    if (input) await produceWithKcat({ ...kcatOrder, topic: KCAT_WARM_UP_TOPIC, input: kcatInput(dataDir, WARM_UP_MESSAGES, VALUE_BYTES, 'warm-up') });
    const raws = [rawBefore];
    const kcatRuns: Measured[] = [];
    if (input) {
      for (const topic of kcatTopics) {
        raws.push(rawAppendFsync(dataDir, chunk, p.bytes, o.fsync));
        const run = await withBrokerCpu(async () => {
          const kcat = await produceWithKcat({ ...kcatOrder, topic, input });
          return { seconds: kcat.seconds, bytes: kcatMessages * VALUE_BYTES, cpuSeconds: kcat.cpuMicros / 1e6 };
        });
        const stored = broker.parts.logs.topic(topic)!.partitions.reduce((n, log) => n + log.highWatermark, 0);
        if (stored !== kcatMessages) throw new Error(`kcat: ${stored} of ${kcatMessages} records stored`);
        kcatRuns.push(run);
      }
    }
    const k =
      kcatRuns.length > 0 ? { ...medianBy(kcatRuns, (run) => run.bytes / run.seconds), rates: kcatRuns.map((run) => mb(run.bytes) / run.seconds) } : undefined;
    return { produce: p, consume: c, kcat: k, raw: medianBy(raws, (r) => r), raws };
  } finally {
    clients.stop();
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const messageRate = (m: Measured): number => m.bytes / VALUE_BYTES / m.seconds;
const msgPerSecond = (m: Measured): string => Math.round(messageRate(m)).toLocaleString('en-US');
const perMb = (m: Measured, seconds: number): string => (Number.isNaN(seconds) ? 'n/a' : `${((seconds / mb(m.bytes)) * 1000).toFixed(1)} ms`);
const cpuNote = (m: Measured): string => `CPU per MB: broker ${perMb(m, m.brokerCpuSeconds)}, client ${perMb(m, m.cpuSeconds)}`;

/** The figures for the one table of bench/run.ts. */
export async function run(o: BrokerOptions): Promise<Figure[]> {
  const r = await measure(o);
  const raw = { name: `raw append${o.fsync === 'always' ? '+fsync per stored batch' : ''}, same chunks`, value: r.raw, unit: 'MB/s' };
  const notes = (x: Measured) =>
    `${msgPerSecond(x)} msg/s; ${o.messages} × 1 KiB, sends of ${o.batch}, ${o.inFlight} in flight, acks=-1, fsync=${o.fsync}; ${cpuNote(x)}`;
  return [
    { name: 'embedded broker: kafkajs produce', value: mb(r.produce.bytes) / r.produce.seconds, unit: 'MB/s', baseline: raw, notes: notes(r.produce) },
    { name: 'embedded broker: kafkajs consume', value: mb(r.consume.bytes) / r.consume.seconds, unit: 'MB/s', baseline: raw, notes: notes(r.consume) },
    ...(r.kcat
      ? [
          {
            name: 'embedded broker: librdkafka (kcat) produce',
            value: mb(r.kcat.bytes) / r.kcat.seconds,
            unit: 'MB/s',
            baseline: raw,
            target: { on: 'ratio' as const, atLeast: 0.9 },
            notes: `${msgPerSecond(r.kcat)} msg/s; ${r.kcat.bytes / VALUE_BYTES} × 1 KiB, batches of ${Math.round(o.batch / PARTITIONS)} per partition, acks=all, fsync=${o.fsync}, kcat's start included; ${cpuNote(r.kcat)}; median of ${KCAT_TURNS} runs in turns with the baseline: ${spread(r.kcat.rates, mbs)}, raw ${spread(r.raws, mbs)}`,
          },
        ]
      : []),
  ];
}

async function main(): Promise<void> {
  const o: BrokerOptions = {
    messages: Number(process.argv[2] ?? 30_000),
    batch: Number(process.argv[3] ?? 100),
    inFlight: Number(process.argv[4] ?? 4),
    fsync: (process.argv[5] ?? 'always') as FsyncPolicy,
  };
  const { produce: p, consume: c, kcat: k, raw } = await measure(o);
  const produceMBs = mb(p.bytes) / p.seconds;
  const line = (what: string, r: Measured): string =>
    `${what.padEnd(8)} ${messageRate(r).toFixed(0).padStart(8)} msg/s ${(mb(r.bytes) / r.seconds).toFixed(1).padStart(7)} MB/s  (${r.seconds.toFixed(2)} s; ${cpuNote(r)})`;
  console.log(
    `embedded broker, kafkajs, ${o.messages} × ${VALUE_BYTES} B values, sends of ${o.batch}, ${o.inFlight} in flight, acks=-1, ${PARTITIONS} partitions, fsync=${o.fsync}`,
  );
  console.log(line('produce', p));
  console.log(line('consume', c));
  if (k) console.log(`${line('kcat', k)} produce / raw = ${(mb(k.bytes) / k.seconds / raw).toFixed(2)}`);
  console.log(
    `raw sequential append${o.fsync === 'always' ? '+fsync per stored batch' : ', one fsync at the end'}: ${raw.toFixed(1)} MB/s; produce / raw = ${(produceMBs / raw).toFixed(2)}`,
  );
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
