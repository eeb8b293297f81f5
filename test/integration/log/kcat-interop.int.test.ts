/**
 * What docs/kafka-clients.md tells operators, done for real: a delta encoded by the log tool, produced with kcat (a
 * librdkafka client with no Avro support), is read by the write-log adapter; the log tool reads the topic
 * back as JSON lines. Skipped, saying so, where kcat is not installed (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { openKafkaWriteLog, type KafkaWriteLog } from '../../../src/log/kafka';
import { loadSchemas, type DeltaEnvelope } from '../../../src/log/schemas';
import { runCommand as run } from '../../support/run-command';

const ROOT = path.resolve(__dirname, '../../..');
const kcat = spawnSync('kcat', ['-V'], { encoding: 'utf8' });
const haveKcat = kcat.status === 0;
if (!haveKcat) console.warn('SKIPPED kcat interop suite: kcat is not installed (apt-get install kcat)');
const describeIfKcat = haveKcat ? describe : describe.skip;

/** The log tool as an operator runs it (`npx tsx src/log/tool.ts …`), without npx's start-up cost. */
const tool = (args: string[], input?: string): Promise<Buffer> =>
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/log/tool.ts'), ...args], input);

describeIfKcat('kcat producing Avro deltas (wire bytes from the log tool)', () => {
  let dir: string;
  let kafka: EmbeddedKafka;
  let registry: EmbeddedRegistry;
  let log: KafkaWriteLog;
  const topic = 'deltas';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kcat-interop-'));
    kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0 });
    registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
    log = await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url });
    await log.createTopics([{ topic, partitions: 3 }]);
  });
  afterAll(async () => {
    await log?.close();
    await registry?.stop();
    await kafka?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a delta produced by kcat is decoded by the adapter, on the partition its key gives in every client', async () => {
    const delta = {
      id: '6f1c1a52-0d7e-4c59-9a53-3a0b7d1f2e11',
      tenant: 'acme',
      entity: 'customer',
      operation: 'create',
      key: 'c-42',
      payload: '{"name":"Ada Lovelace","email":"ada@example.org"}',
      actor: { user: 'u-7', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: 1767225600000,
    };
    const bin = path.join(dir, 'delta.bin');
    writeFileSync(bin, await tool(['encode', '--registry', registry.url, '--topic', topic, '--schema', 'DeltaEnvelope'], JSON.stringify(delta)));

    const key = 'acme/customer/c-42';
    await run('kcat', ['-P', '-b', kafka.brokers[0]!, '-t', topic, '-k', key, '-X', 'partitioner=murmur2_random', bin]);

    const [ours] = await log.publish([
      { topic, key, value: { ...delta, id: 'second', requestId: null, expectedVersion: null }, schema: loadSchemas().DeltaEnvelope },
    ]);
    const seen: { partition: number; value: DeltaEnvelope }[] = [];
    await log.replay<DeltaEnvelope>({ topic, handleBatch: async (b) => void seen.push(...b.records.map((r) => ({ partition: r.partition, value: r.value }))) });
    expect(seen).toHaveLength(2);
    const fromKcat = seen.find((s) => s.value.id === delta.id)!;
    expect(JSON.parse(JSON.stringify(fromKcat.value))).toEqual({ ...delta, requestId: null, expectedVersion: null, retryOf: null });
    expect(fromKcat.partition).toBe(ours!.partition);
  });

  test('kcat sees the adapter’s values in the Confluent wire format, and the log tool reads the topic as JSON lines', async () => {
    const raw = await run('kcat', ['-C', '-b', kafka.brokers[0]!, '-t', topic, '-o', 'beginning', '-e', '-c', '1', '-f', '%s']);
    expect(raw[0]).toBe(0); // magic byte
    expect(raw.readInt32BE(1)).toBeGreaterThan(0); // schema id

    const output = await tool(['read', '--brokers', kafka.brokers.join(','), '--registry', registry.url, '--topic', topic]);
    const lines = output
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { topic: string; key: string; value: DeltaEnvelope });
    expect(lines.map((l) => l.value.id).sort()).toEqual(['6f1c1a52-0d7e-4c59-9a53-3a0b7d1f2e11', 'second']);
    expect(lines.every((l) => l.topic === topic && l.key === 'acme/customer/c-42')).toBe(true);
  });
});
