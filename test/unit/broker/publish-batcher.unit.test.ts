import { PublishBatcher } from '../../../src/broker/publish-batcher';
import { loadSchemas, type LogPosition, type OutgoingRecord, type WriteLog } from '../../../src/log';

const schema = loadSchemas().DeltaEnvelope;
const record = (key: string): OutgoingRecord => ({ topic: 'deltas', key, value: {}, schema });

/** A write log whose publishes stay in flight until the test acknowledges them, one call at a time. */
function heldLog(publishesAcknowledgedTogether: boolean) {
  const calls: { keys: (string | null)[]; acknowledge: () => void }[] = [];
  let offset = 0;
  const log = {
    publishesAcknowledgedTogether,
    publish: (records: readonly OutgoingRecord[]) =>
      new Promise<LogPosition[]>((resolve) => {
        const positions = records.map(() => ({ topic: 'deltas', partition: 0, offset: String(offset++) }));
        calls.push({ keys: records.map((r) => r.key), acknowledge: () => resolve(positions) });
      }),
  } as unknown as WriteLog;
  return { log, calls };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PublishBatcher', () => {
  test('on a log that acknowledges concurrent publishes together, each turn publishes at once, whatever is in flight', async () => {
    const { log, calls } = heldLog(true);
    const batcher = new PublishBatcher(log);
    const first = [batcher.publish(record('a')), batcher.publish(record('b'))];
    await nextTurn();
    const second = batcher.publish(record('c'));
    await nextTurn();
    expect(calls.map((c) => c.keys)).toEqual([['a', 'b'], ['c']]); // the second went out before the first was acknowledged
    calls[1]!.acknowledge();
    expect(await second).toMatchObject({ offset: '2' });
    calls[0]!.acknowledge();
    expect(await Promise.all(first)).toMatchObject([{ offset: '0' }, { offset: '1' }]);
  });

  test('on a Kafka producer, records published while a publish is in flight wait for it and go out together', async () => {
    const { log, calls } = heldLog(false);
    const batcher = new PublishBatcher(log);
    const first = batcher.publish(record('a'));
    await nextTurn();
    const later = [batcher.publish(record('b')), batcher.publish(record('c'))];
    await nextTurn();
    expect(calls.map((c) => c.keys)).toEqual([['a']]);
    calls[0]!.acknowledge();
    await first;
    await nextTurn();
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b', 'c']]);
    calls[1]!.acknowledge();
    expect(await Promise.all(later)).toMatchObject([{ offset: '1' }, { offset: '2' }]);
  });
});
