import { DEFAULT_END_SETTLE_MS } from '../../../../src/log/lost-position';
import { outOfRangeVerdict, validateOutOfRangeWithLeader } from '../../../../src/log/kafka/out-of-range-recovery';

describe('outOfRangeVerdict', () => {
  const leader = { low: 10n, high: 100n };

  test('a position the leader holds is kept and fetched again, at either end too', () => {
    for (const position of [10n, 55n, 100n]) expect(outOfRangeVerdict(position, leader, undefined, 0)).toBe('retry');
  });

  test("beyond the leader's end: kept while the end may trail, reset once it stayed short for the settle time", () => {
    expect(outOfRangeVerdict(120n, leader, undefined, 5_000)).toBe('wait-for-end');
    expect(outOfRangeVerdict(120n, leader, 5_000, 5_000 + DEFAULT_END_SETTLE_MS - 1)).toBe('wait-for-end');
    expect(outOfRangeVerdict(120n, leader, 5_000, 5_000 + DEFAULT_END_SETTLE_MS)).toBe('reset');
  });

  test("below the leader's log start (retention, DeleteRecords): reset at once", () => {
    expect(outOfRangeVerdict(3n, leader, undefined, 0)).toBe('reset');
  });
});

/**
 * kafkajs's own ConsumerGroup class with the recovery installed, called on a stand-in for the group's cluster and
 * offset manager: the leader's offsets it is told, and whether kafkajs's reset (the original method) ran.
 */
describe("kafkajs's consumer group with the recovery installed", () => {
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as { prototype: { recoverFromOffsetOutOfRange: (e: object) => Promise<void> } };
  const original = ConsumerGroup.prototype.recoverFromOffsetOutOfRange;
  beforeAll(() => validateOutOfRangeWithLeader());

  const group = (position: string, low: string, high: string) => {
    const resets: object[] = [];
    const warnings: string[] = [];
    const self = {
      groupId: 'g',
      preferredReadReplicasPerTopicPartition: {},
      logger: { warn: (message: string) => warnings.push(message), error: () => undefined, info: () => undefined },
      cluster: {
        refreshed: 0,
        async refreshMetadata() {
          self.cluster.refreshed++;
        },
        async fetchTopicsOffset([t]: { topic: string; partitions: { partition: number }[]; fromBeginning: boolean }[]) {
          return [{ topic: t!.topic, partitions: [{ partition: t!.partitions[0]!.partition, offset: t!.fromBeginning ? low : high }] }];
        },
      },
      offsetManager: {
        nextOffset: () => position,
        async setDefaultOffset(tp: object) {
          resets.push(tp);
        },
      },
    };
    return { self, resets, warnings };
  };

  test('is installed once', () => {
    const installed = ConsumerGroup.prototype.recoverFromOffsetOutOfRange;
    expect(installed).not.toBe(original);
    validateOutOfRangeWithLeader();
    expect(ConsumerGroup.prototype.recoverFromOffsetOutOfRange).toBe(installed);
  });

  test('a position the leader holds is not reset: metadata is refreshed and the position kept', async () => {
    const { self, resets, warnings } = group('7482', '0', '8783');
    await ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(self, { topic: 'events', partition: 2 });
    expect(resets).toEqual([]);
    expect(self.cluster.refreshed).toBe(1);
    expect(warnings).toEqual([expect.stringContaining('keeping the position')]);
  });

  test("a position below the leader's log start is reset as kafkajs does (its default offset committed)", async () => {
    const { self, resets } = group('3', '10', '100');
    await ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(self, { topic: 'events', partition: 2 });
    expect(resets).toEqual([{ topic: 'events', partition: 2 }]);
  });

  test('a leader that cannot be asked leaves the position as it is', async () => {
    const { self, resets, warnings } = group('5', '0', '10');
    self.cluster.fetchTopicsOffset = async () => {
      throw new Error('leader moving');
    };
    await ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(self, { topic: 'events', partition: 2 });
    expect(resets).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining('could not be asked')]);
  });
});
