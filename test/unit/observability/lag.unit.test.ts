import type { CommittedOffset, LogAdmin } from '../../../src/log';
import { consumerLag, lagOf, projectionLag, serviceGroups, watermarks } from '../../../src/observability';
import type { TopicOffsets } from '../../../src/log';
import { parseEntityConfig, type EntityConfig } from '../../../src/tenant';

/** An in-memory log admin: watermarks per topic and committed offsets per group. */
function memoryAdmin(topics: Record<string, TopicOffsets[]>, committed: Record<string, CommittedOffset[]>): LogAdmin & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    listTopics: async () => Object.keys(topics).sort(),
    topicOffsets: async (topic) => topics[topic] ?? [],
    committedOffsets: async (group, wanted) => {
      asked.push([group, ...wanted]);
      return (committed[group] ?? []).filter((c) => wanted.includes(c.topic));
    },
    close: async () => undefined,
  };
}

const entity = (tenant: string, name: string, notifications: string[]): EntityConfig =>
  parseEntityConfig(
    {
      tenant,
      entity: name,
      key: ['id'],
      fields: { id: { type: 'string' } },
      notifications: { methods: notifications },
      roles: { admin: { operations: ['create'] } },
    },
    'test',
  );

describe('lag', () => {
  test('lagOf: high minus the position, from the low offset when there is none, never negative', () => {
    expect(lagOf({ partition: 0, low: '0', high: '10' }, 4n)).toBe(6);
    expect(lagOf({ partition: 0, low: '3', high: '10' }, null)).toBe(7);
    expect(lagOf({ partition: 0, low: '0', high: '10' }, 12n)).toBe(0);
    expect(lagOf({ partition: 0, low: '0', high: '9007199254740993' }, 9007199254740990n)).toBe(3);
  });

  test('consumerLag: per group and partition, skipping topics that do not exist', async () => {
    const admin = memoryAdmin(
      {
        deltas: [
          { partition: 0, low: '0', high: '5' },
          { partition: 1, low: '2', high: '2' },
        ],
      },
      {
        pipeline: [
          { topic: 'deltas', partition: 0, offset: '3' },
          { topic: 'deltas', partition: 1, offset: null },
        ],
      },
    );
    const marks = await watermarks(admin, ['deltas', 'missing.topic']);
    expect([...marks.keys()]).toEqual(['deltas']);
    const lags = await consumerLag(
      admin,
      [
        { group: 'pipeline', topics: ['deltas', 'missing.topic'] },
        { group: 'idle', topics: ['missing.topic'] },
      ],
      marks,
    );
    expect(lags).toEqual([
      { group: 'pipeline', topic: 'deltas', partition: 0, high: '5', committed: '3', lag: 2 },
      { group: 'pipeline', topic: 'deltas', partition: 1, high: '2', committed: null, lag: 0 },
    ]);
    expect(admin.asked).toEqual([['pipeline', 'deltas'], ['idle']]);
  });

  test('projectionLag: from the stored checkpoints, every partition of every projector', () => {
    const marks = new Map([
      [
        't.e.events',
        [
          { partition: 0, low: '0', high: '4' },
          { partition: 1, low: '0', high: '1' },
        ],
      ],
    ]);
    const lags = projectionLag(['p'], ['t.e.events'], marks, [{ projector: 'p', topic: 't.e.events', partition: 0, nextOffset: 4n }]);
    expect(lags).toEqual([
      { group: 'p', topic: 't.e.events', partition: 0, high: '4', committed: '4', lag: 0 },
      { group: 'p', topic: 't.e.events', partition: 1, high: '1', committed: null, lag: 1 },
    ]);
  });

  test('serviceGroups: emitters read only the topics of entities with notification methods', () => {
    const groups = serviceGroups('dc2', [entity('acme', 'quiet', []), entity('acme', 'loud', ['global'])]);
    expect(groups).toEqual([
      { group: 'deltabroker-pipeline', topics: ['deltas'] },
      { group: 'deltabroker-projector-postgres', topics: ['acme.loud.events', 'acme.quiet.events'] },
      { group: 'deltabroker-projector-search', topics: ['acme.loud.events', 'acme.quiet.events'] },
      { group: 'deltabroker-emitter-global', topics: ['acme.loud.events'] },
      { group: 'deltabroker-emitter-local-dc2', topics: ['acme.loud.events'] },
      { group: 'deltabroker-rejection-metrics', topics: ['rejections'] },
    ]);
  });
});
