import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import { type TestBroker, startTestBroker, waitFor } from './harness';
import { pythonCannot, runPythonScript } from './python/run-python';

/**
 * Static membership (KIP-345) with real clients that set group.instance.id: librdkafka 2.0.2 through
 * confluent-kafka and through kcat. kafka-python 2.0.2 has no group.instance.id; kafkajs neither.
 * A static member that restarts gets its old partitions back and the other members are not revoked.
 */
const KCAT = '/usr/bin/kcat';
const missingPython = pythonCannot('import confluent_kafka');
if (missingPython) console.warn(`confluent-kafka is not importable (${missingPython}): skipping its static-membership test`);
if (!fs.existsSync(KCAT)) console.warn(`kcat not found at ${KCAT}: skipping its static-membership test`);

type RebalanceEvent = [consumer: string, what: 'assigned' | 'revoked', partitions: number[]];

/** A running `kcat -G` static member: what it consumed (`partition:value` lines) and its rebalance lines. */
class KcatMember {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';

  constructor(bootstrap: string, group: string, topic: string, instanceId: string) {
    const settings = ['group.instance.id=' + instanceId, 'session.timeout.ms=6000', 'heartbeat.interval.ms=300', 'auto.offset.reset=earliest'];
    this.child = spawn(KCAT, ['-u', '-b', bootstrap, '-G', group, ...settings.flatMap((s) => ['-X', s]), '-f', '%p:%s\\n', topic]);
    this.child.stdout.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  /** kcat's "Group <g> rebalanced (memberid <id>): assigned: t [0], t [1]" lines, as [what, partitions]. */
  rebalances(): [string, number[]][] {
    return [...this.stderr.matchAll(/rebalanced \(memberid [^)]+\): (assigned|revoked): (.*)/g)].map((m) => [
      m[1]!,
      [...m[2]!.matchAll(/\[(\d+)\]/g)].map((p) => Number(p[1])),
    ]);
  }

  consumed(): string[] {
    return this.stdout.split('\n').filter((l) => l.length > 0);
  }

  /** SIGTERM: kcat closes its consumer, which for a static member sends no LeaveGroup. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const closed = new Promise((resolve) => this.child.once('close', resolve));
    this.child.kill('SIGTERM');
    await closed;
  }
}

describe('embedded kafka: static membership with librdkafka', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
    const admin = broker.client().admin();
    await admin.connect();
    await admin.createTopics({ topics: ['static.py', 'static.kcat'].map((topic) => ({ topic, numPartitions: 4 })) });
    await admin.disconnect();
  });
  afterAll(() => broker.stop());

  (missingPython ? test.skip : test)(
    'confluent-kafka: a restarted static member gets its partitions back; the other is not revoked',
    async () => {
      const run = await runPythonScript<{ split: boolean; rejoined: boolean; beforeRestart: RebalanceEvent[]; aroundRestart: RebalanceEvent[] }>(
        'static_members.py',
        [broker.kafka.brokers[0]!, 'static.py', 'static-py'],
      );
      expect(run.split && run.rejoined).toBe(true);
      // a and b get their partitions in either order.
      expect(run.beforeRestart.slice(-2).sort((x, y) => x[0].localeCompare(y[0]))).toEqual([
        ['a', 'assigned', [0, 1]],
        ['b', 'assigned', [2, 3]],
      ]);
      // Only b's own close and its successor's assignment: a saw nothing.
      expect(run.aroundRestart).toEqual([
        ['b', 'revoked', [2, 3]],
        ['b2', 'assigned', [2, 3]],
      ]);
      const group = broker.kafka.parts.groups.describe('static-py');
      expect(group).toMatchObject({ state: 'Stable', generationId: 2 }); // one rebalance, for b's first join
      expect(group!.members.map((id) => id.replace(/-[0-9a-f-]{36}$/, ''))).toEqual(['static-a', 'static-b']);
    },
    90_000,
  );

  (fs.existsSync(KCAT) ? test : test.skip)(
    'kcat: a static member stopped and restarted resumes its partitions; the other keeps consuming with no revoke',
    async () => {
      const bootstrap = broker.kafka.brokers[0]!;
      const members: KcatMember[] = [];
      const start = (instanceId: string) => {
        const m = new KcatMember(bootstrap, 'static-kcat', 'static.kcat', instanceId);
        members.push(m);
        return m;
      };
      try {
        const k1 = start('k1');
        await waitFor(() => k1.rebalances().length === 1, 20_000, 'k1 to be assigned');
        const k2 = start('k2');
        await waitFor(() => k2.rebalances().length === 1 && k1.rebalances().length === 3, 20_000, 'the group to split');
        expect(k1.rebalances().at(-1)).toEqual(['assigned', [0, 1]]);
        expect(k2.rebalances()).toEqual([['assigned', [2, 3]]]);
        const generation = broker.kafka.parts.groups.describe('static-kcat')!.generationId;

        await k2.stop();
        const k2Again = start('k2');
        await waitFor(() => k2Again.rebalances().length === 1, 20_000, 'the restarted k2 to be assigned');
        expect(k2Again.rebalances()).toEqual([['assigned', [2, 3]]]);

        const producer = broker.client('writer').producer();
        await producer.connect();
        await producer.send({ topic: 'static.kcat', messages: [0, 1, 2, 3].map((partition) => ({ partition, value: `after-${partition}` })) });
        await producer.disconnect();
        await waitFor(() => k1.consumed().length === 2 && k2Again.consumed().length === 2, 20_000, 'both members to read');
        expect(k1.consumed().sort()).toEqual(['0:after-0', '1:after-1']);
        expect(k2Again.consumed().sort()).toEqual(['2:after-2', '3:after-3']);
        expect(k1.rebalances()).toHaveLength(3); // assigned all, revoked for k2's first join, assigned 0–1: nothing since
        expect(broker.kafka.parts.groups.describe('static-kcat')).toMatchObject({ state: 'Stable', generationId: generation });
      } finally {
        await Promise.all(members.map((m) => m.stop()));
      }
    },
    90_000,
  );
});
