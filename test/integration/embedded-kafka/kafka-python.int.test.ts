import { type TestBroker, startTestBroker } from './harness';
import { pythonCannot, runPythonScript } from './python/run-python';

/**
 * kafka-python 2.0.2 (Debian's python3-kafka, installed by .ci/run) with no api_version override: it probes
 * the broker's version itself (ApiVersions v0 pipelined with Metadata v0), then runs its admin client, an
 * acks=all producer and a consumer group that reads, commits and resumes.
 */
interface KafkaPythonRun {
  apiVersion: number[];
  topicListed: boolean;
  producedOffsets: number[];
  firstRead: string[];
  describedWhileActive: { state: string; protocolType: string; protocol: string; members: number; assignment: number[] };
  listedWhileActive: [string, string][];
  deleteWhileActive: [string, string][];
  resumedRead: string[];
  committed: Record<string, number>;
  partitionsAfterCreate: number;
  retentionMs: string;
  deleteWhenEmpty: [string, string][];
  listedAfterDelete: unknown[];
}

const missing = pythonCannot('import kafka');
if (missing)
  console.warn(`kafka-python is not importable by /usr/bin/python3 (${missing}): skipping the kafka-python tests; apt-get install python3-kafka to run them`);
const describeKafkaPython = missing ? describe.skip : describe;

describeKafkaPython('embedded kafka: kafka-python 2.0.2', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(() => broker.stop());

  test('admin, producer (acks=all) and a consumer group work without an api_version override', async () => {
    const run = await runPythonScript<KafkaPythonRun>('kafka_python_client.py', [broker.kafka.brokers[0]!, 'py.orders', 'py-readers']);
    // kafka-python recognised a modern broker (Fetch v11 → 2.3), not the 0.8.2 it fell back to before.
    expect(run.apiVersion).toEqual([2, 3, 0]);
    expect(run.topicListed).toBe(true);
    expect(run.producedOffsets).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(run.firstRead).toEqual(['record-0', 'record-1', 'record-2', 'record-3', 'record-4', 'record-5']);
    expect(run.describedWhileActive).toEqual({ state: 'Stable', protocolType: 'consumer', protocol: 'range', members: 1, assignment: [0] });
    expect(run.listedWhileActive).toEqual([['py-readers', 'consumer']]);
    expect(run.deleteWhileActive).toEqual([['py-readers', 'NonEmptyGroupError']]);
    expect(run.resumedRead).toEqual(['record-6', 'record-7', 'record-8', 'record-9']);
    expect(run.committed).toEqual({ 0: 10 });
    expect(run.partitionsAfterCreate).toBe(3);
    expect(run.retentionMs).toBe('3600000');
    expect(run.deleteWhenEmpty).toEqual([['py-readers', 'NoError']]);
    expect(run.listedAfterDelete).toEqual([]);

    // What kafka-python did is what the broker holds.
    const admin = broker.client().admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets('py.orders');
    expect(offsets.map((p) => [p.partition, p.high])).toEqual([
      [0, '10'],
      [1, '0'],
      [2, '0'],
    ]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain('py-readers');
    await admin.disconnect();
  }, 120_000);
});
