import { alterConfigsCodec } from '../../../src/embedded/kafka/api/alter-configs/codec';
import { createPartitionsCodec } from '../../../src/embedded/kafka/api/create-partitions/codec';
import { createTopicsCodec } from '../../../src/embedded/kafka/api/create-topics/codec';
import { deleteGroupsCodec } from '../../../src/embedded/kafka/api/delete-groups/codec';
import { type DescribedGroup, describeGroupsCodec } from '../../../src/embedded/kafka/api/describe-groups/codec';
import { incrementalAlterConfigsCodec } from '../../../src/embedded/kafka/api/incremental-alter-configs/codec';
import { listGroupsCodec } from '../../../src/embedded/kafka/api/list-groups/codec';
import { metadataCodec } from '../../../src/embedded/kafka/api/metadata/codec';
import { offsetDeleteCodec } from '../../../src/embedded/kafka/api/offset-delete/codec';
import { decodeRequest, encodeResponse, kafkajsDecode, kafkajsRequest, range } from './kafkajs-wire';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

const group = (more: Partial<DescribedGroup> = {}): DescribedGroup => ({
  errorCode: 0,
  groupId: 'g',
  state: 'Stable',
  protocolType: 'consumer',
  protocol: 'range',
  members: [{ memberId: 'm', groupInstanceId: null, clientId: 'c', clientHost: '/h', metadata: Buffer.from([1]), assignment: Buffer.from([2]) }],
  authorizedOperations: -2147483648,
  ...more,
});

/** Group and topic administration: versions kafkajs writes are cross-checked with it; the rest are exact bytes. */
describe('admin codecs against kafkajs', () => {
  test.each(range(0, 2))('ListGroups v%i', async (v) => {
    expect(decodeRequest(listGroupsCodec, v, await kafkajsRequest('listGroups', v, {}))).toEqual({ statesFilter: [] });
    const res = encodeResponse(listGroupsCodec, v, { throttleTimeMs: 0, errorCode: 0, groups: [{ groupId: 'g', protocolType: 'consumer', state: 'Empty' }] });
    expect(await kafkajsDecode('listGroups', v, res)).toMatchObject({ errorCode: 0, groups: [{ groupId: 'g', protocolType: 'consumer' }] });
  });

  test.each(range(0, 2))('DescribeGroups v%i', async (v) => {
    expect(decodeRequest(describeGroupsCodec, v, await kafkajsRequest('describeGroups', v, { groupIds: ['g', 'h'] }))).toEqual({
      groups: ['g', 'h'],
      includeAuthorizedOperations: false,
    });
    const decoded = await kafkajsDecode('describeGroups', v, encodeResponse(describeGroupsCodec, v, { throttleTimeMs: 0, groups: [group()] }));
    expect(decoded.groups).toEqual([
      {
        errorCode: 0,
        groupId: 'g',
        state: 'Stable',
        protocolType: 'consumer',
        protocol: 'range',
        members: [{ memberId: 'm', clientId: 'c', clientHost: '/h', memberMetadata: Buffer.from([1]), memberAssignment: Buffer.from([2]) }],
      },
    ]);
  });

  test.each(range(0, 1))('DeleteGroups v%i', async (v) => {
    expect(decodeRequest(deleteGroupsCodec, v, await kafkajsRequest('deleteGroups', v, ['g']))).toEqual({ groupsNames: ['g'] });
    const res = encodeResponse(deleteGroupsCodec, v, { throttleTimeMs: 0, results: [{ groupId: 'g', errorCode: 0 }] });
    expect(await kafkajsDecode('deleteGroups', v, res)).toMatchObject({ results: [{ groupId: 'g', errorCode: 0 }] });
  });

  test.each(range(0, 1))('CreatePartitions v%i', async (v) => {
    const body = await kafkajsRequest('createPartitions', v, { topicPartitions: [{ topic: 't', count: 5 }], timeout: 1000, validateOnly: true });
    expect(decodeRequest(createPartitionsCodec, v, body)).toEqual({
      topics: [{ name: 't', count: 5, assignments: null }],
      timeoutMs: 1000,
      validateOnly: true,
    });
    const res = encodeResponse(createPartitionsCodec, v, { throttleTimeMs: 0, results: [{ name: 't', errorCode: 37, errorMessage: 'no' }] });
    expect(await kafkajsDecode('createPartitions', v, res)).toMatchObject({ topicErrors: [{ topic: 't', errorCode: 37, errorMessage: 'no' }] });
  });

  test.each(range(0, 1))('AlterConfigs v%i', async (v) => {
    const body = await kafkajsRequest('alterConfigs', v, {
      resources: [{ type: 2, name: 't', configEntries: [{ name: 'retention.ms', value: '60000' }] }],
      validateOnly: false,
    });
    expect(decodeRequest(alterConfigsCodec, v, body)).toEqual({
      resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', value: '60000' }] }],
      validateOnly: false,
    });
    const res = encodeResponse(alterConfigsCodec, v, {
      throttleTimeMs: 0,
      responses: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't' }],
    });
    expect(await kafkajsDecode('alterConfigs', v, res)).toMatchObject({ resources: [{ errorCode: 0, resourceType: 2, resourceName: 't' }] });
  });
});

describe('admin codecs: exact bytes (versions kafkajs does not write)', () => {
  test('ListGroups v3 (flexible) and v4 (states filter, state per group)', () => {
    expect(decodeRequest(listGroupsCodec, 3, hex('00'))).toEqual({ statesFilter: [] });
    // states ["Empty", "Stable"], no tags
    expect(decodeRequest(listGroupsCodec, 4, hex('03 06 456d707479 07 537461626c65 00'))).toEqual({ statesFilter: ['Empty', 'Stable'] });
    const res = { throttleTimeMs: 0, errorCode: 0, groups: [{ groupId: 'g', protocolType: 'consumer', state: 'Empty' }] };
    // throttle, error, compact array of 1: "g", "consumer", [v4: "Empty"], tags; tags
    expect(encodeResponse(listGroupsCodec, 3, res)).toEqual(hex('00000000 0000 02 02 67 09 636f6e73756d6572 00 00'));
    expect(encodeResponse(listGroupsCodec, 4, res)).toEqual(hex('00000000 0000 02 02 67 09 636f6e73756d6572 06 456d707479 00 00'));
  });

  test('DescribeGroups v3 (authorized operations) and v4 (group instance id)', () => {
    expect(decodeRequest(describeGroupsCodec, 3, hex('00000001 0001 67 01'))).toEqual({ groups: ['g'], includeAuthorizedOperations: true });
    const member = '00000001 0001 6d %s 0001 63 0002 2f68 00000001 01 00000001 02';
    const head = '00000000 00000001 0000 0001 67 0006 537461626c65 0008 636f6e73756d6572 0005 72616e6765';
    expect(encodeResponse(describeGroupsCodec, 3, { throttleTimeMs: 0, groups: [group({ authorizedOperations: 328 })] })).toEqual(
      hex(`${head} ${member.replace('%s', '')} 00000148`),
    );
    expect(encodeResponse(describeGroupsCodec, 4, { throttleTimeMs: 0, groups: [group()] })).toEqual(hex(`${head} ${member.replace('%s', 'ffff')} 80000000`));
  });

  test('OffsetDelete v0', () => {
    expect(decodeRequest(offsetDeleteCodec, 0, hex('0001 67 00000001 0001 74 00000002 00000000 00000001'))).toEqual({
      groupId: 'g',
      topics: [{ name: 't', partitionIndexes: [0, 1] }],
    });
    const res = { errorCode: 0, throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 86 }] }] };
    expect(encodeResponse(offsetDeleteCodec, 0, res)).toEqual(hex('0000 00000000 00000001 0001 74 00000001 00000000 0056'));
  });

  test('IncrementalAlterConfigs v0', () => {
    // [topic "t" [("retention.ms", SET, "1000"), ("segment.ms", DELETE, null)]], validate only
    const body = hex('00000001 02 0001 74 00000002 000c 726574656e74696f6e2e6d73 00 0004 31303030 000a 7365676d656e742e6d73 01 ffff 01');
    expect(decodeRequest(incrementalAlterConfigsCodec, 0, body)).toEqual({
      resources: [
        {
          resourceType: 2,
          resourceName: 't',
          configs: [
            { name: 'retention.ms', operation: 0, value: '1000' },
            { name: 'segment.ms', operation: 1, value: null },
          ],
        },
      ],
      validateOnly: true,
    });
    const res = { throttleTimeMs: 0, responses: [{ errorCode: 40, errorMessage: 'bad', resourceType: 2, resourceName: 't' }] };
    expect(encodeResponse(incrementalAlterConfigsCodec, 0, res)).toEqual(hex('00000000 00000001 0028 0003 626164 02 0001 74'));
  });

  test('CreateTopics v4 has v3’s format; -1 asks for the broker’s defaults', () => {
    const body = hex('00000001 0001 74 ffffffff ffff 00000000 00000000 000003e8 00');
    const expected = { topics: [{ name: 't', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false };
    expect(decodeRequest(createTopicsCodec, 3, body)).toEqual(expected);
    expect(decodeRequest(createTopicsCodec, 4, body)).toEqual(expected);
  });

  test('Metadata v0: request of every topic; response without rack, controller and internal flag', () => {
    expect(decodeRequest(metadataCodec, 0, hex('00000000'))).toEqual({ topics: null, allowAutoTopicCreation: true });
    expect(decodeRequest(metadataCodec, 0, hex('00000001 0001 74'))).toEqual({ topics: ['t'], allowAutoTopicCreation: true });
    const res = encodeResponse(metadataCodec, 0, {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: null }],
      clusterId: 'c',
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 't',
          isInternal: false,
          partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 1, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] }],
        },
      ],
    });
    expect(res).toEqual(hex('00000001 00000001 0001 68 00002384  00000001 0000 0001 74 00000001 0000 00000000 00000001 00000001 00000001 00000001 00000001'));
  });
});
