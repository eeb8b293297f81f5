import { execFileSync, spawn } from 'node:child_process';
import { CompressionTypes } from 'kafkajs';
import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';

/** librdkafka interop through Debian's kcat (1.7.1 on librdkafka 2.0.2 here), installed by .ci/run. */
const KCAT = '/usr/bin/kcat';
const kcatVersion = ((): string | null => {
  try {
    return execFileSync(KCAT, ['-V'], { encoding: 'utf8' }).split('\n')[0] ?? 'kcat';
  } catch {
    return null;
  }
})();
if (!kcatVersion) console.warn(`kcat not found at ${KCAT}: skipping the librdkafka interop tests (install Debian's kcat to run them)`);
const describeKcat = kcatVersion ? describe : describe.skip;

function kcat(args: string[], input?: string, timeoutMs = 20_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(KCAT, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`kcat ${args.join(' ')} exited with ${code}: ${stderr}`));
    });
    child.stdin.end(input ?? '');
  });
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l.length > 0);

describeKcat('embedded kafka: librdkafka interop (kcat)', () => {
  let broker: TestBroker;
  let bootstrap: string;
  beforeAll(async () => {
    broker = await startTestBroker();
    bootstrap = broker.kafka.brokers[0]!;
  });
  afterAll(() => broker.stop());

  test.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'])('kcat produces (idempotent, %s), kafkajs and a CRC-checking kcat consume', async (codec) => {
    const topic = `from-kcat-${codec}`;
    const input = Array.from({ length: 50 }, (_, i) => `key${i}:value-${codec}-${i}`).join('\n');
    await kcat(['-b', bootstrap, '-P', '-t', topic, '-K:', '-z', codec, '-X', 'enable.idempotence=true'], `${input}\n`);

    const back = await kcat(['-b', bootstrap, '-C', '-t', topic, '-e', '-q', '-X', 'check.crcs=true', '-f', '%k=%s\\n']);
    expect(lines(back.stdout).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `key${i}=value-${codec}-${i}`).sort());

    if (codec !== 'none' && codec !== 'gzip') return; // kafkajs has only gzip built in
    const consumer = broker.client('kafkajs-reader').consumer({ groupId: `reader-${codec}`, ...FAST_GROUP });
    const got: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void got.push(`${message.key!.toString()}=${message.value!.toString()}`) });
    await waitFor(() => got.length >= 50, 20_000, '50 records from kcat');
    await consumer.disconnect();
    expect(got.sort()).toEqual(lines(back.stdout).sort());
  });

  test('kafkajs produces, kcat consumes with CRC checks', async () => {
    const producer = broker.client('writer').producer({ idempotent: true });
    await producer.connect();
    await producer.send({ topic: 'from-kafkajs', messages: Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `plain-${i}` })) });
    await producer.send({
      topic: 'from-kafkajs',
      compression: CompressionTypes.GZIP,
      messages: Array.from({ length: 40 }, (_, i) => ({ key: `z${i}`, value: `gzip-${i}` })),
    });
    await producer.disconnect();
    const out = await kcat(['-b', bootstrap, '-C', '-t', 'from-kafkajs', '-e', '-q', '-X', 'check.crcs=true', '-f', '%k=%s\\n']);
    const got = lines(out.stdout);
    expect(got).toHaveLength(80);
    expect(got).toEqual(expect.arrayContaining(['k0=plain-0', 'z39=gzip-39']));
  });

  test('a kcat consumer group (-G) reads what kafkajs wrote, then resumes from its commits', async () => {
    const topic = 'for-kcat-group';
    const producer = broker.client('writer').producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `first-${i}` })) });

    const group = ['-b', bootstrap, '-G', 'kcat-group', '-e', '-q', '-X', 'check.crcs=true', '-X', 'auto.offset.reset=earliest', '-f', '%s\\n', topic];
    const first = await kcat(group);
    expect(lines(first.stdout).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `first-${i}`).sort());

    await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `second-${i}` })) });
    await producer.disconnect();
    const second = await kcat(group);
    expect(lines(second.stdout).sort()).toEqual(Array.from({ length: 5 }, (_, i) => `second-${i}`).sort());

    // The group's offsets are visible to kafkajs's admin too.
    const admin = broker.client().admin();
    await admin.connect();
    const [offsets] = await admin.fetchOffsets({ groupId: 'kcat-group', topics: [topic] });
    await admin.disconnect();
    expect(offsets!.partitions.reduce((n, p) => n + Number(p.offset), 0)).toBe(35);
  });

  test('kcat -L lists topics without creating any', async () => {
    const meta = JSON.parse((await kcat(['-b', bootstrap, '-L', '-J'])).stdout) as { brokers: { id: number; name: string }[]; topics: { topic: string }[] };
    expect(meta.brokers).toEqual([expect.objectContaining({ id: 1, name: bootstrap })]);
    const again = JSON.parse((await kcat(['-b', bootstrap, '-L', '-J'])).stdout) as { topics: unknown[] };
    expect(again.topics.length).toBe(meta.topics.length);
  });
});
