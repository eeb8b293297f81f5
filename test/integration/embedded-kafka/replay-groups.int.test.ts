import { startEmbeddedRegistry } from '../../../src/embedded/registry';
import { recordSchema } from '../../../src/log';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import { silentLogger } from '../../../src/logger';
import { type TestBroker, startTestBroker } from './harness';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const probe = recordSchema<{ n: number }>({ type: 'record', name: 'ReplayGroupProbe', fields: [{ name: 'n', type: 'int' }] });

/** A replay reads through a throwaway consumer group; once it is done the broker no longer lists that group. */
describe('embedded kafka: replay groups', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(() => broker.stop());

  test('the replay deletes its temporary group when it finishes', async () => {
    const registryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-registry-'));
    const registry = await startEmbeddedRegistry({ dataDir: registryDir, port: 0 });
    const log = await openKafkaWriteLog({ brokers: broker.kafka.brokers, registryUrl: registry.url, logger: silentLogger(), fetchMaxWaitMs: 100 });
    try {
      await log.createTopics([{ topic: 'replayed.probe', partitions: 2 }]);
      await log.publish([1, 2, 3, 4].map((n) => ({ topic: 'replayed.probe', key: `k${n}`, value: { n }, schema: probe })));
      let read = 0;
      const result = await log.replay<{ n: number }>({ topic: 'replayed.probe', handleBatch: async (b) => void (read += b.records.length) });
      expect(result.records).toBe(4);
      expect(read).toBe(4);

      const admin = broker.client().admin();
      await admin.connect();
      expect((await admin.listGroups()).groups.filter((g) => g.groupId.startsWith('deltabroker-replay-'))).toEqual([]);
      await admin.disconnect();
    } finally {
      await log.close();
      await registry.stop();
      fs.rmSync(registryDir, { recursive: true, force: true });
    }
  }, 30_000);
});
