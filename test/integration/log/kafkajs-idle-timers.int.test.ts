/**
 * The service's kafkajs clients sit idle without timers (src/log/kafka/request-queue-timer.ts): kafkajs 2.2.4
 * alone fires one every millisecond on every connection that has had an answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { openKafkaLogAdmin } from '../../../src/log/kafka';

describe("the service's kafkajs clients, idle", () => {
  let dir: string;
  let kafka: EmbeddedKafka;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kafkajs-idle-'));
    kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0 });
  });
  afterAll(async () => {
    await kafka?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an admin client that has had its answers sets almost no timers while idle', async () => {
    const admin = await openKafkaLogAdmin({ brokers: kafka.brokers });
    try {
      await admin.listTopics();
      await admin.listGroups();
      const timers = jest.spyOn(global, 'setTimeout');
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        // kafkajs 2.2.4 alone: hundreds in these 500 ms (one a millisecond on each connection).
        expect(timers.mock.calls.length).toBeLessThan(20);
      } finally {
        timers.mockRestore();
      }
    } finally {
      await admin.close();
    }
  });
});
