import { addOffsetsToTxnCodec } from '../../../src/embedded/kafka/api/add-offsets-to-txn/codec';
import { addPartitionsToTxnCodec } from '../../../src/embedded/kafka/api/add-partitions-to-txn/codec';
import { describeTransactionsCodec } from '../../../src/embedded/kafka/api/describe-transactions/codec';
import { endTxnCodec } from '../../../src/embedded/kafka/api/end-txn/codec';
import { listTransactionsCodec } from '../../../src/embedded/kafka/api/list-transactions/codec';
import { fetchCodec } from '../../../src/embedded/kafka/api/fetch/codec';
import { txnOffsetCommitCodec } from '../../../src/embedded/kafka/api/txn-offset-commit/codec';
import { decodeRecords } from '../../../src/embedded/kafka/protocol/batch-records';
import { encodeMarkerBatch } from '../../../src/embedded/kafka/protocol/control-batch';
import { batchCrcValid, readBatchHeader } from '../../../src/embedded/kafka/protocol/record-batch';
import { decodeRequest, encodeResponse, kafkajsDecode, kafkajsRequest, range } from './kafkajs-wire';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('transaction API codecs', () => {
  test.each(range(0, 1))('AddPartitionsToTxn v%i against kafkajs', async (v) => {
    const body = await kafkajsRequest('addPartitionsToTxn', v, {
      transactionalId: 'tx',
      producerId: 7,
      producerEpoch: 2,
      topics: [{ topic: 't', partitions: [0, 3] }],
    });
    expect(decodeRequest(addPartitionsToTxnCodec, v, body)).toEqual({
      transactionalId: 'tx',
      producerId: 7,
      producerEpoch: 2,
      topics: [{ name: 't', partitions: [0, 3] }],
    });
    const res = encodeResponse(addPartitionsToTxnCodec, v, {
      throttleTimeMs: 0,
      results: [
        {
          name: 't',
          results: [
            { partitionIndex: 0, errorCode: 0 },
            { partitionIndex: 3, errorCode: 3 },
          ],
        },
      ],
    });
    expect(res).toEqual(hex('00000000 00000001 0001 74 00000002 00000000 0000 00000003 0003'));
    expect(await kafkajsDecode('addPartitionsToTxn', v, res)).toMatchObject({
      errors: [
        {
          topic: 't',
          partitionErrors: [
            { partition: 0, errorCode: 0 },
            { partition: 3, errorCode: 3 },
          ],
        },
      ],
    });
  });

  test.each(range(0, 1))('AddOffsetsToTxn v%i against kafkajs', async (v) => {
    const body = await kafkajsRequest('addOffsetsToTxn', v, { transactionalId: 'tx', producerId: 7, producerEpoch: 2, groupId: 'g' });
    expect(body).toEqual(hex('0002 7478 0000000000000007 0002 0001 67'));
    expect(decodeRequest(addOffsetsToTxnCodec, v, body)).toEqual({ transactionalId: 'tx', producerId: 7, producerEpoch: 2, groupId: 'g' });
    const res = encodeResponse(addOffsetsToTxnCodec, v, { throttleTimeMs: 5, errorCode: 47 });
    expect(res).toEqual(hex('00000005 002f'));
    expect(await kafkajsDecode('addOffsetsToTxn', v, res)).toMatchObject({ errorCode: 47 });
  });

  test.each(range(0, 1))('EndTxn v%i against kafkajs', async (v) => {
    const body = await kafkajsRequest('endTxn', v, { transactionalId: 'tx', producerId: 7, producerEpoch: 2, transactionResult: true });
    expect(body).toEqual(hex('0002 7478 0000000000000007 0002 01'));
    expect(decodeRequest(endTxnCodec, v, body)).toEqual({ transactionalId: 'tx', producerId: 7, producerEpoch: 2, committed: true });
    const res = encodeResponse(endTxnCodec, v, { throttleTimeMs: 0, errorCode: 0 });
    expect(res).toEqual(hex('00000000 0000'));
    expect(await kafkajsDecode('endTxn', v, res)).toMatchObject({ errorCode: 0 });
  });

  test.each(range(0, 1))('TxnOffsetCommit v%i against kafkajs', async (v) => {
    const body = await kafkajsRequest('txnOffsetCommit', v, {
      transactionalId: 'tx',
      groupId: 'g',
      producerId: 7,
      producerEpoch: 2,
      topics: [{ topic: 't', partitions: [{ partition: 1, offset: '42', metadata: null }] }],
    });
    expect(decodeRequest(txnOffsetCommitCodec, v, body)).toEqual({
      transactionalId: 'tx',
      groupId: 'g',
      producerId: 7,
      producerEpoch: 2,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    const res = encodeResponse(txnOffsetCommitCodec, v, { throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 1, errorCode: 0 }] }] });
    expect(res).toEqual(hex('00000000 00000001 0001 74 00000001 00000001 0000'));
    expect(await kafkajsDecode('txnOffsetCommit', v, res)).toMatchObject({ topics: [{ topic: 't', partitions: [{ partition: 1, errorCode: 0 }] }] });
  });

  test('TxnOffsetCommit v2 adds the committed leader epoch (exact bytes; kafkajs lacks v2)', () => {
    const body = hex('0002 7478 0001 67 0000000000000007 0002 00000001 0001 74 00000001 00000001 000000000000002a 00000004 ffff');
    expect(decodeRequest(txnOffsetCommitCodec, 2, body).topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 1, committedOffset: 42, committedLeaderEpoch: 4, committedMetadata: null }] },
    ]);
  });

  test('Fetch v4 lists aborted transactions for read_committed readers', async () => {
    const res = encodeResponse(fetchCodec, 4, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 't',
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 9,
              lastStableOffset: 4,
              logStartOffset: 0,
              abortedTransactions: [{ producerId: 7, firstOffset: 2 }],
              records: null,
            },
          ],
        },
      ],
    });
    // throttle, [topic "t" [partition 0, error 0, hw 9, lso 4, aborted [pid 7, first 2], records size 0]]
    expect(res).toEqual(
      hex('00000000 00000001 0001 74 00000001 00000000 0000 0000000000000009 0000000000000004 00000001 0000000000000007 0000000000000002 00000000'),
    );
    const decoded = (await kafkajsDecode('fetch', 4, res)) as { responses: { partitions: { lastStableOffset: string; abortedTransactions: unknown[] }[] }[] };
    expect(decoded.responses[0]!.partitions[0]).toMatchObject({ lastStableOffset: '4', abortedTransactions: [{ producerId: '7', firstOffset: '2' }] });
  });

  test('a transaction marker is a transactional control batch of one record: key version 0 + type, value version 0 + coordinator epoch', () => {
    const commit = encodeMarkerBatch(7, 3, true, 0, 1_000);
    const h = readBatchHeader(commit);
    expect(h).toMatchObject({ attributes: 0x30, producerId: 7, producerEpoch: 3, baseSequence: -1, recordCount: 1, lastOffsetDelta: 0 });
    expect(batchCrcValid(commit)).toBe(true);
    const [record] = decodeRecords(commit)!;
    expect(record!.key).toEqual(hex('0000 0001'));
    expect(record!.value).toEqual(hex('0000 00000000'));
    expect(decodeRecords(encodeMarkerBatch(7, 3, false))![0]!.key).toEqual(hex('0000 0000'));
  });

  test('ListTransactions v0 (flexible) on exact bytes', () => {
    // state filters ["Ongoing"], producer id filters [7], no tagged fields
    const body = hex('02 084f6e676f696e67 02 0000000000000007 00');
    expect(decodeRequest(listTransactionsCodec, 0, body)).toEqual({ stateFilters: ['Ongoing'], producerIdFilters: [7] });
    const res = encodeResponse(listTransactionsCodec, 0, {
      throttleTimeMs: 0,
      errorCode: 0,
      unknownStateFilters: ['Nope'],
      transactionStates: [{ transactionalId: 'tx', producerId: 7, transactionState: 'Ongoing' }],
    });
    // throttle, error, unknown ["Nope"], [{"tx", 7, "Ongoing", no tags}], no tags
    expect(res).toEqual(hex('00000000 0000 02 054e6f7065 02 03 7478 0000000000000007 08 4f6e676f696e67 00 00'));
  });

  test('DescribeTransactions v0 (flexible) on exact bytes', () => {
    expect(decodeRequest(describeTransactionsCodec, 0, hex('02 03 7478 00'))).toEqual({ transactionalIds: ['tx'] });
    const res = encodeResponse(describeTransactionsCodec, 0, {
      throttleTimeMs: 0,
      transactionStates: [
        {
          errorCode: 0,
          transactionalId: 'tx',
          transactionState: 'Ongoing',
          transactionTimeoutMs: 60_000,
          transactionStartTimeMs: 1000,
          producerId: 7,
          producerEpoch: 2,
          topics: [{ name: 't', partitionIndexes: [0, 1] }],
        },
      ],
    });
    expect(res).toEqual(
      hex('00000000 02 0000 03 7478 08 4f6e676f696e67 0000ea60 00000000000003e8 0000000000000007 00000002 02 02 74 03 00000000 00000001 00 00 00'),
    );
  });
});
