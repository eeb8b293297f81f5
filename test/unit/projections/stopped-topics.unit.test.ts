/**
 * StoppedTopics: a partition counts as stopped until its consumer's resumer consumes it again; a resumer that
 * fails leaves it stopped (and /ready saying so), and a partition nobody stopped is not resumed.
 */
import { StoppedTopics } from '../../../projections/stopped-topics';

const lost = { topic: 'acme.merchant_account.events', partition: 1, position: '3', logStart: '0', highWatermark: '1' };

describe('StoppedTopics', () => {
  test('a resumed partition is stopped no longer; /ready passes again', async () => {
    const told: string[] = [];
    const stopped = new StoppedTopics((p) => told.push(`${p.consumer}:${p.partition}`));
    stopped.stop('projector', lost);
    expect(stopped.stop('projector', lost).code).toBe('DB_TOPIC_RECREATED'); // the first report wins; told once
    expect(told).toEqual(['projector:1']);
    await expect(stopped.check()).rejects.toThrow(/DB_TOPIC_RECREATED: projector stopped acme\.merchant_account\.events\/1/);
    const resumed: string[] = [];
    stopped.onResume('projector', async (topic, partition) => {
      // The consumer's handler looks at errorOf: while resuming, the partition no longer counts as stopped.
      expect(stopped.errorOf('projector', topic, partition)).toBeUndefined();
      resumed.push(`${topic}/${partition}`);
    });
    await stopped.resume({ consumer: 'projector', ...lost });
    expect(resumed).toEqual(['acme.merchant_account.events/1']);
    expect(stopped.list()).toEqual([]);
    await expect(stopped.check()).resolves.toBeUndefined();
  });

  test('a resumer that fails leaves the partition stopped', async () => {
    const stopped = new StoppedTopics();
    stopped.stop('emitter', lost);
    stopped.onResume('emitter', async () => {
      throw new Error('the group is rebalancing');
    });
    await expect(stopped.resume({ consumer: 'emitter', ...lost })).rejects.toThrow('the group is rebalancing');
    expect(stopped.errorOf('emitter', lost.topic, lost.partition)?.code).toBe('DB_TOPIC_RECREATED');
    expect(stopped.list()).toHaveLength(1);
  });

  test('a partition that is not stopped, or whose consumer cannot resume, is refused with DB_CONFLICT', async () => {
    const stopped = new StoppedTopics();
    stopped.onResume('projector', async () => undefined);
    await expect(stopped.resume({ consumer: 'projector', ...lost })).rejects.toMatchObject({ code: 'DB_CONFLICT', details: { rule: 'stopped-here' } });
    stopped.stop('no-resumer', lost);
    await expect(stopped.resume({ consumer: 'no-resumer', ...lost })).rejects.toMatchObject({ code: 'DB_CONFLICT' });
    expect(stopped.list()).toHaveLength(1);
  });
});
