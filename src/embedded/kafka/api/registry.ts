import { addOffsetsToTxnCodec } from './add-offsets-to-txn/codec';
import { handleAddOffsetsToTxn } from './add-offsets-to-txn/handler';
import { addPartitionsToTxnCodec } from './add-partitions-to-txn/codec';
import { handleAddPartitionsToTxn } from './add-partitions-to-txn/handler';
import { alterConfigsCodec } from './alter-configs/codec';
import { describeTransactionsCodec } from './describe-transactions/codec';
import { handleDescribeTransactions } from './describe-transactions/handler';
import { endTxnCodec } from './end-txn/codec';
import { listTransactionsCodec } from './list-transactions/codec';
import { handleListTransactions } from './list-transactions/handler';
import { handleEndTxn } from './end-txn/handler';
import { txnOffsetCommitCodec } from './txn-offset-commit/codec';
import { handleTxnOffsetCommit } from './txn-offset-commit/handler';
import { handleAlterConfigs } from './alter-configs/handler';
import { createPartitionsCodec } from './create-partitions/codec';
import { handleCreatePartitions } from './create-partitions/handler';
import { deleteGroupsCodec } from './delete-groups/codec';
import { handleDeleteGroups } from './delete-groups/handler';
import { describeGroupsCodec } from './describe-groups/codec';
import { handleDescribeGroups } from './describe-groups/handler';
import { incrementalAlterConfigsCodec } from './incremental-alter-configs/codec';
import { handleIncrementalAlterConfigs } from './incremental-alter-configs/handler';
import { listGroupsCodec } from './list-groups/codec';
import { handleListGroups } from './list-groups/handler';
import { offsetDeleteCodec } from './offset-delete/codec';
import { handleOffsetDelete } from './offset-delete/handler';
import { apiVersionsCodec } from './api-versions/codec';
import { handleApiVersions } from './api-versions/handler';
import { createTopicsCodec } from './create-topics/codec';
import { handleCreateTopics } from './create-topics/handler';
import { deleteTopicsCodec } from './delete-topics/codec';
import { handleDeleteTopics } from './delete-topics/handler';
import { describeConfigsCodec } from './describe-configs/codec';
import { handleDescribeConfigs } from './describe-configs/handler';
import { fetchCodec } from './fetch/codec';
import { handleFetch } from './fetch/handler';
import { findCoordinatorCodec } from './find-coordinator/codec';
import { handleFindCoordinator } from './find-coordinator/handler';
import { heartbeatCodec } from './heartbeat/codec';
import { handleHeartbeat } from './heartbeat/handler';
import { initProducerIdCodec } from './init-producer-id/codec';
import { handleInitProducerId } from './init-producer-id/handler';
import { joinGroupCodec } from './join-group/codec';
import { handleJoinGroup } from './join-group/handler';
import { leaveGroupCodec } from './leave-group/codec';
import { handleLeaveGroup } from './leave-group/handler';
import { listOffsetsCodec } from './list-offsets/codec';
import { handleListOffsets } from './list-offsets/handler';
import { metadataCodec } from './metadata/codec';
import { handleMetadata } from './metadata/handler';
import { CODECS } from './negotiation';
import { offsetCommitCodec } from './offset-commit/codec';
import { handleOffsetCommit } from './offset-commit/handler';
import { offsetFetchCodec } from './offset-fetch/codec';
import { handleOffsetFetch } from './offset-fetch/handler';
import { produceCodec } from './produce/codec';
import { handleProduce } from './produce/handler';
import { saslAuthenticateCodec } from './sasl-authenticate/codec';
import { handleSaslAuthenticate } from './sasl-authenticate/handler';
import { saslHandshakeCodec } from './sasl-handshake/codec';
import { handleSaslHandshake } from './sasl-handshake/handler';
import { syncGroupCodec } from './sync-group/codec';
import { handleSyncGroup } from './sync-group/handler';
import { type Api, defineApi } from './types';

/** Every API the broker serves, by key: codec + handler. */
const APIS: Api<unknown, unknown>[] = [
  defineApi(produceCodec, handleProduce),
  defineApi(fetchCodec, handleFetch),
  defineApi(listOffsetsCodec, handleListOffsets),
  defineApi(metadataCodec, handleMetadata),
  defineApi(offsetCommitCodec, handleOffsetCommit),
  defineApi(offsetFetchCodec, handleOffsetFetch),
  defineApi(findCoordinatorCodec, handleFindCoordinator),
  defineApi(joinGroupCodec, handleJoinGroup),
  defineApi(heartbeatCodec, handleHeartbeat),
  defineApi(leaveGroupCodec, handleLeaveGroup),
  defineApi(syncGroupCodec, handleSyncGroup),
  defineApi(apiVersionsCodec, handleApiVersions),
  defineApi(createTopicsCodec, handleCreateTopics),
  defineApi(deleteTopicsCodec, handleDeleteTopics),
  defineApi(initProducerIdCodec, handleInitProducerId),
  defineApi(addPartitionsToTxnCodec, handleAddPartitionsToTxn),
  defineApi(addOffsetsToTxnCodec, handleAddOffsetsToTxn),
  defineApi(endTxnCodec, handleEndTxn),
  defineApi(txnOffsetCommitCodec, handleTxnOffsetCommit),
  defineApi(describeTransactionsCodec, handleDescribeTransactions),
  defineApi(listTransactionsCodec, handleListTransactions),
  defineApi(describeConfigsCodec, handleDescribeConfigs),
  defineApi(describeGroupsCodec, handleDescribeGroups),
  defineApi(listGroupsCodec, handleListGroups),
  defineApi(createPartitionsCodec, handleCreatePartitions),
  defineApi(alterConfigsCodec, handleAlterConfigs),
  defineApi(deleteGroupsCodec, handleDeleteGroups),
  defineApi(incrementalAlterConfigsCodec, handleIncrementalAlterConfigs),
  defineApi(offsetDeleteCodec, handleOffsetDelete),
  defineApi(saslHandshakeCodec, handleSaslHandshake),
  defineApi(saslAuthenticateCodec, handleSaslAuthenticate),
];

const byKey = new Map(APIS.map((a) => [a.key, a]));
if (byKey.size !== CODECS.length) throw new Error('embedded kafka: API registry and negotiation table disagree');

export const apiFor = (key: number): Api<unknown, unknown> | undefined => byKey.get(key);
