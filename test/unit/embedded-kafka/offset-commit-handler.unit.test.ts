import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handleOffsetCommit } from '../../../src/embedded/kafka/api/offset-commit/handler';
import type { OffsetCommitRequest, OffsetCommitResponse } from '../../../src/embedded/kafka/api/offset-commit/codec';
import type { RequestContext } from '../../../src/embedded/kafka/api/types';
import { BrokerContext } from '../../../src/embedded/kafka/broker';
import { resolveOptions } from '../../../src/embedded/kafka/options';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import { sessionFor } from '../../../src/embedded/kafka/server/session';

/** OffsetCommit's handler over a broker without sockets: which check answers first, as Kafka orders them. */
let dir: string;
let broker: BrokerContext;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-offset-commit-'));
  broker = new BrokerContext(resolveOptions({ dataDir: dir, port: 9092 }));
  broker.logs.createTopic('known', 1);
});
afterEach(async () => {
  await broker.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ctx: RequestContext = { apiVersion: 7, correlationId: 1, clientId: 'unit', session: sessionFor('127.0.0.1', 40000) };
const commit = async (req: Partial<OffsetCommitRequest>): Promise<OffsetCommitResponse> =>
  (await handleOffsetCommit(broker, { groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null, topics: [], ...req }, ctx)) as OffsetCommitResponse;
const partition0 = (name: string) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }] });

async function groupWithAMember(): Promise<void> {
  const j = await broker.groups.join({
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 2_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    clientId: 'c',
    clientHost: '127.0.0.1',
  });
  await broker.groups.sync({ groupId: 'g', generationId: j.generationId, memberId: j.memberId }, []);
}

describe('OffsetCommit handler', () => {
  test('an unknown topic is UNKNOWN_TOPIC_OR_PARTITION even when the member fields are wrong for a group with members', async () => {
    await groupWithAMember();
    const res = await commit({ topics: [partition0('missing'), partition0('known')] });
    expect(res.topics).toEqual([
      { name: 'missing', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      { name: 'known', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID }] },
    ]);
  });

  test('a partition beyond the topic’s count is UNKNOWN_TOPIC_OR_PARTITION; the known one is stored', async () => {
    const res = await commit({
      topics: [
        {
          name: 'known',
          partitions: [0, 3].map((partitionIndex) => ({ partitionIndex, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null })),
        },
      ],
    });
    expect(res.topics[0]!.partitions).toEqual([
      { partitionIndex: 0, errorCode: ErrorCode.NONE },
      { partitionIndex: 3, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    ]);
    expect(broker.groups.offsetStore.get('g', 'known', 0)?.offset).toBe(5);
  });

  test('an empty group id is INVALID_GROUP_ID for known topics only', async () => {
    const res = await commit({ groupId: '', topics: [partition0('missing'), partition0('known')] });
    expect(res.topics.map((t) => t.partitions[0]!.errorCode)).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_GROUP_ID]);
  });
});
