import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka, type FsyncPolicy } from '../src/embedded/kafka';
import { startEmbeddedRegistry } from '../src/embedded/registry';
import { loadSchemas, type DeltaEnvelope, type OutgoingRecord, type WriteLog } from '../src/log';
import { openInProcessWriteLog } from '../src/log/in-process';
import { openKafkaWriteLog } from '../src/log/kafka';
import { measured } from './support/cpu-time';

/**
 * Not in `npm run bench`'s table: the two WriteLog adapters on the same embedded broker, side by side. Each
 * publishes DeltaEnvelope records (batches of `batch`, `inFlight` publishes at a time, acks after the fsync
 * policy), then a fresh consumer group reads them all back. Prints records/s and the process's CPU time per
 * record for each phase.
 * Usage: npx tsx bench/write-log-adapters.ts [records=20000] [batch=100] [in-flight=4] [fsync=always]
 */
const [records = 20_000, batch = 100, inFlight = 4] = process.argv.slice(2, 5).map(Number);
const fsync = (process.argv[5] ?? 'always') as FsyncPolicy;
const TOPIC = 'deltas';
const schemas = loadSchemas();

const delta = (n: number): OutgoingRecord<DeltaEnvelope> => ({
  topic: TOPIC,
  key: `acme/customer/c-${n % 1000}`,
  schema: schemas.DeltaEnvelope,
  value: {
    id: `d-${n}`,
    requestId: `r-${n}`,
    tenant: 'acme',
    entity: 'customer',
    operation: 'update',
    key: `c-${n % 1000}`,
    payload: JSON.stringify({ n, name: `name ${n}`, email: `user${n}@example.org` }),
    actor: { user: 'u-1', roles: ['writer'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.now(),
    expectedVersion: null,
    retryOf: null,
  },
});

interface Phase {
  readonly perSecond: number;
  readonly cpuMicrosPerRecord: number;
}

async function timed(count: number, work: () => Promise<void>): Promise<Phase> {
  const { seconds, cpuMicros } = await measured(work);
  return { perSecond: Math.round(count / seconds), cpuMicrosPerRecord: Math.round((cpuMicros / count) * 10) / 10 };
}

async function measure(
  name: string,
  open: (brokers: string[], registryUrl: string, parts: Parameters<typeof openInProcessWriteLog>[0]['broker']) => Promise<WriteLog>,
): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-write-log-'));
  const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0, fsync });
  const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
  const log = await open(kafka.brokers, registry.url, kafka.parts);
  try {
    await log.createTopics([{ topic: TOPIC, partitions: 3 }]);
    await log.publish([delta(-1)]); // registers the schema outside the timing
    let next = 0;
    const publish = await timed(records, async () => {
      const worker = async (): Promise<void> => {
        while (next < records) {
          const from = next;
          next += batch;
          await log.publish(Array.from({ length: Math.min(batch, records - from) }, (_, i) => delta(from + i)));
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
    });
    const consume = await timed(records, async () => {
      let seen = 0;
      let done: () => void = () => undefined;
      const all = new Promise<void>((resolve) => (done = resolve));
      const sub = await log.subscribe({
        groupId: 'bench',
        topics: [TOPIC],
        partitionsConsumedConcurrently: 3,
        handleBatch: async (b) => {
          seen += b.records.length;
          if (seen >= records + 1) done();
        },
      });
      await all;
      await sub.stop();
    });
    console.log(
      `${name.padEnd(10)} publish ${String(publish.perSecond).padStart(7)} rec/s ${publish.cpuMicrosPerRecord.toFixed(1).padStart(5)} µs CPU/rec | ` +
        `consume ${String(consume.perSecond).padStart(7)} rec/s ${consume.cpuMicrosPerRecord.toFixed(1).padStart(5)} µs CPU/rec`,
    );
  } finally {
    await log.close();
    await registry.stop();
    await kafka.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`${records} DeltaEnvelope records, batches of ${batch}, ${inFlight} publishes in flight, fsync=${fsync}`);
  await measure('kafkajs', (brokers, registryUrl) => openKafkaWriteLog({ brokers, registryUrl, fetchMaxWaitMs: 100 }));
  await measure('in-process', (_brokers, registryUrl, broker) => openInProcessWriteLog({ broker, registryUrl }));
}

void main();
