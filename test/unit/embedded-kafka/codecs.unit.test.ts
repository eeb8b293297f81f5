import { apiVersionsCodec } from '../../../src/embedded/kafka/api/api-versions/codec';
import { createTopicsCodec } from '../../../src/embedded/kafka/api/create-topics/codec';
import { deleteTopicsCodec } from '../../../src/embedded/kafka/api/delete-topics/codec';
import { describeConfigsCodec } from '../../../src/embedded/kafka/api/describe-configs/codec';
import { fetchCodec } from '../../../src/embedded/kafka/api/fetch/codec';
import { findCoordinatorCodec } from '../../../src/embedded/kafka/api/find-coordinator/codec';
import { heartbeatCodec } from '../../../src/embedded/kafka/api/heartbeat/codec';
import { initProducerIdCodec } from '../../../src/embedded/kafka/api/init-producer-id/codec';
import { joinGroupCodec } from '../../../src/embedded/kafka/api/join-group/codec';
import { leaveGroupCodec } from '../../../src/embedded/kafka/api/leave-group/codec';
import { listOffsetsCodec } from '../../../src/embedded/kafka/api/list-offsets/codec';
import { metadataCodec } from '../../../src/embedded/kafka/api/metadata/codec';
import { offsetCommitCodec } from '../../../src/embedded/kafka/api/offset-commit/codec';
import { offsetFetchCodec } from '../../../src/embedded/kafka/api/offset-fetch/codec';
import { produceCodec } from '../../../src/embedded/kafka/api/produce/codec';
import { syncGroupCodec } from '../../../src/embedded/kafka/api/sync-group/codec';
import { decodeRecords } from '../../../src/embedded/kafka/protocol/batch-records';
import { encodeRecordBatch, readBatchHeader, splitBatches } from '../../../src/embedded/kafka/protocol/record-batch';
import { decodeRequest, encodeResponse, kafkajsDecode, kafkajsRequest, range } from './kafkajs-wire';

/**
 * Every request version we accept that kafkajs can write is read back field by field, and every response
 * version we write is read by kafkajs. Versions kafkajs lacks have exact-byte fixtures below.
 */
describe('codecs against kafkajs', () => {
  test.each(range(3, 7))('Produce v%i', async (v) => {
    const body = await kafkajsRequest('produce', v, {
      acks: -1,
      timeout: 3000,
      topicData: [{ topic: 't', partitions: [{ partition: 2, messages: [{ key: 'k', value: 'hello', timestamp: 1700000000000 }] }] }],
    });
    const req = decodeRequest(produceCodec, v, body);
    expect(req).toMatchObject({ transactionalId: null, acks: -1, timeoutMs: 3000 });
    expect(req.topics[0]!.name).toBe('t');
    const part = req.topics[0]!.partitions[0]!;
    expect(part.index).toBe(2);
    const [batch] = splitBatches(part.records!);
    expect(decodeRecords(batch!)).toEqual([
      expect.objectContaining({ offset: 0, timestamp: 1700000000000, key: Buffer.from('k'), value: Buffer.from('hello') }),
    ]);

    const res = encodeResponse(produceCodec, v, {
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ index: 2, errorCode: 0, baseOffset: 41, logAppendTimeMs: -1, logStartOffset: 7 }] }],
    });
    const decoded = await kafkajsDecode('produce', v, res);
    expect(decoded.topics).toEqual([
      { topicName: 't', partitions: [expect.objectContaining({ partition: 2, errorCode: 0, baseOffset: '41', ...(v >= 5 && { logStartOffset: '7' }) })] },
    ]);
  });

  test.each(range(4, 11))('Fetch v%i', async (v) => {
    const body = await kafkajsRequest('fetch', v, {
      replicaId: -1,
      maxWaitTime: 500,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 1,
      topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: '5', maxBytes: 4096, logStartOffset: '0' }] }],
    });
    const req = decodeRequest(fetchCodec, v, body);
    expect(req).toMatchObject({ replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 1 });
    expect(req.topics).toEqual([{ topic: 't', partitions: [expect.objectContaining({ partition: 0, fetchOffset: 5, partitionMaxBytes: 4096 })] }]);

    const batch = encodeRecordBatch({
      baseOffset: 5,
      records: [
        { key: 'a', value: 'one' },
        { key: 'b', value: 'two' },
      ],
    });
    const res = encodeResponse(fetchCodec, v, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 't',
          partitions: [
            { partitionIndex: 0, errorCode: 0, highWatermark: 7, lastStableOffset: 7, logStartOffset: 0, abortedTransactions: null, records: [batch] },
          ],
        },
        {
          topic: 'u',
          partitions: [{ partitionIndex: 1, errorCode: 1, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0, abortedTransactions: null, records: null }],
        },
      ],
    });
    const decoded = (await kafkajsDecode('fetch', v, res)) as {
      responses: { topicName: string; partitions: { messages: { offset: string; value: Buffer }[]; highWatermark: string }[] }[];
    };
    expect(decoded.responses[0]!.partitions[0]!.highWatermark).toBe('7');
    expect(decoded.responses[0]!.partitions[0]!.messages.map((m) => [m.offset, m.value.toString()])).toEqual([
      ['5', 'one'],
      ['6', 'two'],
    ]);
    expect(decoded.responses[1]!.partitions[0]!.messages).toEqual([]);
  });

  test.each(range(1, 3))('ListOffsets v%i', async (v) => {
    const body = await kafkajsRequest('listOffsets', v, {
      replicaId: -1,
      isolationLevel: 1,
      topics: [{ topic: 't', partitions: [{ partition: 1, timestamp: -2 }] }],
    });
    expect(decodeRequest(listOffsetsCodec, v, body).topics).toEqual([{ name: 't', partitions: [{ partitionIndex: 1, timestamp: -2 }] }]);
    const res = encodeResponse(listOffsetsCodec, v, {
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, errorCode: 0, timestamp: -1, offset: 99 }] }],
    });
    const decoded = (await kafkajsDecode('listOffsets', v, res)) as { responses: { topic: string; partitions: { offset: string }[] }[] };
    expect(decoded.responses[0]!.partitions[0]!.offset).toBe('99');
  });

  test.each(range(1, 6))('Metadata v%i', async (v) => {
    const body = await kafkajsRequest('metadata', v, { topics: ['a', 'b'], allowAutoTopicCreation: false });
    expect(decodeRequest(metadataCodec, v, body)).toEqual({ topics: ['a', 'b'], allowAutoTopicCreation: v < 4 });
    // kafkajs writes an empty list as null: "all topics".
    expect(decodeRequest(metadataCodec, v, await kafkajsRequest('metadata', v, { topics: [] })).topics).toBeNull();
    const res = encodeResponse(metadataCodec, v, {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null }],
      clusterId: 'c',
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 'a',
          isInternal: false,
          partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 1, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] }],
        },
      ],
    });
    const decoded = (await kafkajsDecode('metadata', v, res)) as {
      brokers: unknown[];
      controllerId: number;
      topicMetadata: { topic: string; partitionMetadata: { leader: number }[] }[];
    };
    expect(decoded.brokers).toEqual([expect.objectContaining({ nodeId: 1, host: '127.0.0.1', port: 9092 })]);
    expect(decoded.controllerId).toBe(1);
    expect(decoded.topicMetadata[0]).toMatchObject({ topic: 'a', partitionMetadata: [{ leader: 1 }] });
  });

  test.each(range(2, 5))('OffsetCommit v%i', async (v) => {
    const body = await kafkajsRequest('offsetCommit', v, {
      groupId: 'g',
      groupGenerationId: 3,
      memberId: 'm',
      retentionTime: -1,
      topics: [{ topic: 't', partitions: [{ partition: 0, offset: '12', metadata: 'md' }] }],
    });
    expect(decodeRequest(offsetCommitCodec, v, body)).toEqual({
      groupId: 'g',
      generationId: 3,
      memberId: 'm',
      groupInstanceId: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 12, committedLeaderEpoch: -1, committedMetadata: 'md' }] }],
    });
    const res = encodeResponse(offsetCommitCodec, v, { throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 22 }] }] });
    expect((await kafkajsDecode('offsetCommit', v, res)).responses).toEqual([{ topic: 't', partitions: [{ partition: 0, errorCode: 22 }] }]);
  });

  test.each(range(1, 4))('OffsetFetch v%i', async (v) => {
    const body = await kafkajsRequest('offsetFetch', v, { groupId: 'g', topics: [{ topic: 't', partitions: [{ partition: 0 }, { partition: 2 }] }] });
    expect(decodeRequest(offsetFetchCodec, v, body)).toEqual({ groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 2] }] });
    const res = encodeResponse(offsetFetchCodec, v, {
      throttleTimeMs: 0,
      errorCode: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }] }],
    });
    const decoded = (await kafkajsDecode('offsetFetch', v, res)) as { responses: { topic: string; partitions: { partition: number; offset: string }[] }[] };
    expect(decoded.responses[0]!.partitions[0]).toMatchObject({ partition: 0, offset: '5' });
  });

  test.each(range(0, 2))('FindCoordinator v%i', async (v) => {
    const body = await kafkajsRequest('findCoordinator', v, { groupId: 'g', coordinatorKey: 'g', coordinatorType: 0 });
    expect(decodeRequest(findCoordinatorCodec, v, body)).toEqual({ key: 'g', keyType: 0 });
    const res = encodeResponse(findCoordinatorCodec, v, { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 1, host: '127.0.0.1', port: 9092 });
    expect(await kafkajsDecode('findCoordinator', v, res)).toMatchObject({ errorCode: 0, coordinator: { nodeId: 1, host: '127.0.0.1', port: 9092 } });
  });

  test.each(range(0, 5))('JoinGroup v%i', async (v) => {
    const body = await kafkajsRequest('joinGroup', v, {
      groupId: 'g',
      sessionTimeout: 6000,
      rebalanceTimeout: 9000,
      memberId: '',
      protocolType: 'consumer',
      groupProtocols: [{ name: 'RoundRobinAssigner', metadata: Buffer.from([1, 2]) }],
    });
    expect(decodeRequest(joinGroupCodec, v, body)).toEqual({
      groupId: 'g',
      sessionTimeoutMs: 6000,
      rebalanceTimeoutMs: v >= 1 ? 9000 : 6000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'RoundRobinAssigner', metadata: Buffer.from([1, 2]) }],
    });
    const res = encodeResponse(joinGroupCodec, v, {
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 4,
      protocolName: 'RoundRobinAssigner',
      leader: 'm1',
      memberId: 'm1',
      members: [{ memberId: 'm1', groupInstanceId: null, metadata: Buffer.from([9]) }],
    });
    expect(await kafkajsDecode('joinGroup', v, res)).toMatchObject({
      errorCode: 0,
      generationId: 4,
      groupProtocol: 'RoundRobinAssigner',
      leaderId: 'm1',
      memberId: 'm1',
      members: [{ memberId: 'm1', memberMetadata: Buffer.from([9]) }],
    });
  });

  test.each(range(0, 3))('SyncGroup v%i', async (v) => {
    const body = await kafkajsRequest('syncGroup', v, {
      groupId: 'g',
      generationId: 2,
      memberId: 'm',
      groupAssignment: [{ memberId: 'm', memberAssignment: Buffer.from([7]) }],
    });
    expect(decodeRequest(syncGroupCodec, v, body)).toEqual({
      groupId: 'g',
      generationId: 2,
      memberId: 'm',
      groupInstanceId: null,
      assignments: [{ memberId: 'm', assignment: Buffer.from([7]) }],
    });
    const res = encodeResponse(syncGroupCodec, v, { throttleTimeMs: 0, errorCode: 0, assignment: Buffer.from([7]) });
    expect(await kafkajsDecode('syncGroup', v, res)).toMatchObject({ errorCode: 0, memberAssignment: Buffer.from([7]) });
  });

  test.each(range(0, 3))('Heartbeat v%i', async (v) => {
    const body = await kafkajsRequest('heartbeat', v, { groupId: 'g', groupGenerationId: 2, memberId: 'm' });
    expect(decodeRequest(heartbeatCodec, v, body)).toEqual({ groupId: 'g', generationId: 2, memberId: 'm', groupInstanceId: null });
    expect(await kafkajsDecode('heartbeat', v, encodeResponse(heartbeatCodec, v, { throttleTimeMs: 0, errorCode: 27 }))).toMatchObject({ errorCode: 27 });
  });

  test.each(range(0, 3))('LeaveGroup v%i', async (v) => {
    const body = await kafkajsRequest('leaveGroup', v, { groupId: 'g', memberId: 'm', members: [{ memberId: 'm' }] });
    expect(decodeRequest(leaveGroupCodec, v, body)).toEqual({ groupId: 'g', members: [{ memberId: 'm', groupInstanceId: null }] });
    const res = encodeResponse(leaveGroupCodec, v, { throttleTimeMs: 0, errorCode: 0, members: [{ memberId: 'm', groupInstanceId: null, errorCode: 0 }] });
    expect(await kafkajsDecode('leaveGroup', v, res)).toMatchObject({ errorCode: 0 });
  });

  test.each(range(0, 2))('ApiVersions v%i', async (v) => {
    decodeRequest(apiVersionsCodec, v, await kafkajsRequest('apiVersions', v, {}));
    const res = encodeResponse(apiVersionsCodec, v, { errorCode: 0, throttleTimeMs: 0, apiKeys: [{ apiKey: 0, minVersion: 3, maxVersion: 7 }] });
    expect(await kafkajsDecode('apiVersions', v, res)).toMatchObject({ errorCode: 0, apiVersions: [{ apiKey: 0, minVersion: 3, maxVersion: 7 }] });
  });

  test.each(range(0, 3))('CreateTopics v%i', async (v) => {
    const body = await kafkajsRequest('createTopics', v, {
      topics: [{ topic: 'n', numPartitions: -1, replicationFactor: -1, configEntries: [{ name: 'retention.ms', value: '1000' }] }],
      timeout: 5000,
      validateOnly: true,
    });
    expect(decodeRequest(createTopicsCodec, v, body)).toEqual({
      topics: [{ name: 'n', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [{ name: 'retention.ms', value: '1000' }] }],
      timeoutMs: 5000,
      validateOnly: v >= 1,
    });
    const res = encodeResponse(createTopicsCodec, v, { throttleTimeMs: 0, topics: [{ name: 'n', errorCode: 36, errorMessage: 'exists' }] });
    expect(((await kafkajsDecode('createTopics', v, res)).topicErrors as unknown[])[0]).toMatchObject({ topic: 'n', errorCode: 36 });
  });

  test.each(range(0, 1))('DeleteTopics v%i', async (v) => {
    const body = await kafkajsRequest('deleteTopics', v, { topics: ['x', 'y'], timeout: 100 });
    expect(decodeRequest(deleteTopicsCodec, v, body)).toEqual({ topicNames: ['x', 'y'], timeoutMs: 100 });
    const res = encodeResponse(deleteTopicsCodec, v, { throttleTimeMs: 0, responses: [{ name: 'x', errorCode: 3 }] });
    expect((await kafkajsDecode('deleteTopics', v, res)).topicErrors).toEqual([{ topic: 'x', errorCode: 3 }]);
  });

  test.each(range(0, 1))('InitProducerId v%i', async (v) => {
    const body = await kafkajsRequest('initProducerId', v, { transactionalId: null, transactionTimeout: 30000 });
    expect(decodeRequest(initProducerIdCodec, v, body)).toEqual({ transactionalId: null, transactionTimeoutMs: 30000 });
    const res = encodeResponse(initProducerIdCodec, v, { throttleTimeMs: 0, errorCode: 0, producerId: 4242, producerEpoch: 0 });
    expect(await kafkajsDecode('initProducerId', v, res)).toMatchObject({ errorCode: 0, producerId: '4242', producerEpoch: 0 });
  });

  test.each(range(0, 2))('DescribeConfigs v%i', async (v) => {
    const body = await kafkajsRequest('describeConfigs', v, { resources: [{ type: 2, name: 't', configNames: ['retention.ms'] }], includeSynonyms: false });
    expect(decodeRequest(describeConfigsCodec, v, body)).toEqual({
      resources: [{ resourceType: 2, resourceName: 't', configurationKeys: ['retention.ms'] }],
      includeSynonyms: false,
    });
    const res = encodeResponse(describeConfigsCodec, v, {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: 't',
          configs: [{ name: 'retention.ms', value: '1000', readOnly: false, isDefault: false, configSource: 1, isSensitive: false }],
        },
      ],
    });
    const decoded = (await kafkajsDecode('describeConfigs', v, res)) as { resources: { configEntries: { configName: string; configValue: string }[] }[] };
    expect(decoded.resources[0]!.configEntries[0]).toMatchObject({ configName: 'retention.ms', configValue: '1000' });
  });
});

/** Versions kafkajs does not write: exact bytes from the message specs. */
describe('codecs: exact bytes', () => {
  const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

  test('OffsetCommit v6 (leader epoch) and v7 (group instance id)', () => {
    // group "g", generation 1, member "m", [v7: instance null], topics [ "t" [ partition 0, offset 5, epoch 2, metadata null ] ]
    const v6 = hex('0001 67 00000001 0001 6d  00000001 0001 74 00000001 00000000 0000000000000005 00000002 ffff');
    const v7 = hex('0001 67 00000001 0001 6d ffff 00000001 0001 74 00000001 00000000 0000000000000005 00000002 ffff');
    const expected = {
      groupId: 'g',
      generationId: 1,
      memberId: 'm',
      groupInstanceId: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: 2, committedMetadata: null }] }],
    };
    expect(decodeRequest(offsetCommitCodec, 6, v6)).toEqual(expected);
    expect(decodeRequest(offsetCommitCodec, 7, v7)).toEqual(expected);
    expect(encodeResponse(offsetCommitCodec, 7, { throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] })).toEqual(
      hex('00000000 00000001 0001 74 00000001 00000000 0000'),
    );
  });

  test('OffsetFetch v5 adds the leader epoch; null topics means all', () => {
    expect(decodeRequest(offsetFetchCodec, 5, hex('0001 67 ffffffff'))).toEqual({ groupId: 'g', topics: null });
    const res = encodeResponse(offsetFetchCodec, 5, {
      throttleTimeMs: 0,
      errorCode: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 9, committedLeaderEpoch: -1, metadata: null, errorCode: 0 }] }],
    });
    expect(res).toEqual(hex('00000000 00000001 0001 74 00000001 00000001 0000000000000009 ffffffff ffff 0000 0000'));
  });

  test('DeleteTopics v2–3 share v1’s format', () => {
    const body = hex('00000001 0001 78 000003e8');
    for (const v of [2, 3]) expect(decodeRequest(deleteTopicsCodec, v, body)).toEqual({ topicNames: ['x'], timeoutMs: 1000 });
  });

  test('Fetch: an empty partition carries an empty record set, never null (librdkafka rejects -1)', () => {
    const res = encodeResponse(fetchCodec, 4, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 't',
          partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0, abortedTransactions: null, records: null }],
        },
      ],
    });
    // throttle, [topic "t" [partition 0, error 0, hw 0, lso 0, aborted null, records size 0]]
    expect(res).toEqual(hex('00000000 00000001 0001 74 00000001 00000000 0000 0000000000000000 0000000000000000 ffffffff 00000000'));
  });

  test('a stored batch header is read back after being written', () => {
    const batch = encodeRecordBatch({ records: [{ value: 'x' }], producerId: 7, producerEpoch: 1, baseSequence: 3 });
    expect(readBatchHeader(batch)).toMatchObject({
      magic: 2,
      producerId: 7,
      producerEpoch: 1,
      baseSequence: 3,
      recordCount: 1,
      lastOffsetDelta: 0,
      size: batch.length,
    });
  });
});
