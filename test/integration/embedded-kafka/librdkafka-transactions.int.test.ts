import { type TestBroker, startTestBroker } from './harness';
import { pythonCannot, runPythonScript } from './python/run-python';

/** librdkafka's transactional producer and read_committed consumer, through python3-confluent-kafka. */
interface TxnRun {
  committed: string[];
  uncommitted: string[];
  fenced: { name: string; fatal: boolean } | null;
  groupOffset: number;
}

const missing = pythonCannot('import confluent_kafka');
if (missing)
  console.warn(
    `python3-confluent-kafka is missing (${missing}): skipping the librdkafka transaction tests; apt-get install python3-confluent-kafka to run them`,
  );
const describeLibrdkafka = missing ? describe.skip : describe;

describeLibrdkafka('embedded kafka: transactions with librdkafka', () => {
  let broker: TestBroker;
  afterEach(() => broker?.stop());

  test('commit, abort, offsets in a transaction, a fenced zombie; read_committed sees committed records only', async () => {
    broker = await startTestBroker();
    const admin = broker.client().admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'rd.txn', numPartitions: 2 }] });
    await admin.disconnect();

    const run = await runPythonScript<TxnRun>('librdkafka_transactions.py', [broker.kafka.brokers[0]!, 'rd.txn']);
    expect(run.committed).toEqual(['c1', 'c2', 'c3', 'c4', 'successor']);
    expect(run.uncommitted).toEqual(['a1', 'a2', 'c1', 'c2', 'c3', 'c4', 'successor', 'zombie']);
    expect(run.groupOffset).toBe(42);
    expect(run.fenced).toMatchObject({ fatal: true });
  });
});
