import { addOffsetsToTxnCodec } from './add-offsets-to-txn/codec';
import { addPartitionsToTxnCodec } from './add-partitions-to-txn/codec';
import { alterConfigsCodec } from './alter-configs/codec';
import { describeTransactionsCodec } from './describe-transactions/codec';
import { endTxnCodec } from './end-txn/codec';
import { listTransactionsCodec } from './list-transactions/codec';
import { txnOffsetCommitCodec } from './txn-offset-commit/codec';
import { createPartitionsCodec } from './create-partitions/codec';
import { deleteGroupsCodec } from './delete-groups/codec';
import { describeGroupsCodec } from './describe-groups/codec';
import { incrementalAlterConfigsCodec } from './incremental-alter-configs/codec';
import { listGroupsCodec } from './list-groups/codec';
import { offsetDeleteCodec } from './offset-delete/codec';
import { apiVersionsCodec, type ApiVersionRange } from './api-versions/codec';
import { createTopicsCodec } from './create-topics/codec';
import { deleteTopicsCodec } from './delete-topics/codec';
import { describeConfigsCodec } from './describe-configs/codec';
import { fetchCodec } from './fetch/codec';
import { findCoordinatorCodec } from './find-coordinator/codec';
import { heartbeatCodec } from './heartbeat/codec';
import { initProducerIdCodec } from './init-producer-id/codec';
import { joinGroupCodec } from './join-group/codec';
import { leaveGroupCodec } from './leave-group/codec';
import { listOffsetsCodec } from './list-offsets/codec';
import { metadataCodec } from './metadata/codec';
import { offsetCommitCodec } from './offset-commit/codec';
import { offsetFetchCodec } from './offset-fetch/codec';
import { produceCodec } from './produce/codec';
import { saslAuthenticateCodec } from './sasl-authenticate/codec';
import { saslHandshakeCodec } from './sasl-handshake/codec';
import { syncGroupCodec } from './sync-group/codec';
import type { ApiCodec } from './types';

/**
 * Version negotiation, in one place. We advertise exactly the ranges our codecs implement; clients pick
 * min(their max, our max). A request outside the ranges closes its connection, except ApiVersions, which
 * is answered with UNSUPPORTED_VERSION and our ranges so the client can retry lower (see dispatch.ts).
 */
export const CODECS: readonly ApiCodec<unknown, unknown>[] = [
  produceCodec,
  fetchCodec,
  listOffsetsCodec,
  metadataCodec,
  offsetCommitCodec,
  offsetFetchCodec,
  findCoordinatorCodec,
  joinGroupCodec,
  heartbeatCodec,
  leaveGroupCodec,
  syncGroupCodec,
  apiVersionsCodec,
  createTopicsCodec,
  deleteTopicsCodec,
  initProducerIdCodec,
  addPartitionsToTxnCodec,
  addOffsetsToTxnCodec,
  endTxnCodec,
  txnOffsetCommitCodec,
  describeTransactionsCodec,
  listTransactionsCodec,
  describeConfigsCodec,
  describeGroupsCodec,
  listGroupsCodec,
  createPartitionsCodec,
  alterConfigsCodec,
  deleteGroupsCodec,
  incrementalAlterConfigsCodec,
  offsetDeleteCodec,
  saslHandshakeCodec,
  saslAuthenticateCodec,
] as unknown as ApiCodec<unknown, unknown>[];

export const API_VERSIONS_KEY = apiVersionsCodec.key;

const ranges: ApiVersionRange[] = CODECS.map((c) => ({ apiKey: c.key, minVersion: c.minVersion, maxVersion: c.maxVersion })).sort(
  (a, b) => a.apiKey - b.apiKey,
);

export const advertisedVersions = (): ApiVersionRange[] => ranges;

export type Negotiation = 'supported' | 'unknown-api' | 'unsupported-version';

export function negotiate(apiKey: number, apiVersion: number): Negotiation {
  const range = ranges.find((r) => r.apiKey === apiKey);
  if (!range) return 'unknown-api';
  return apiVersion >= range.minVersion && apiVersion <= range.maxVersion ? 'supported' : 'unsupported-version';
}

/** The version a client should use given its own range: the highest in both, or null when none is. */
export function pickVersion(apiKey: number, clientMin: number, clientMax: number): number | null {
  const range = ranges.find((r) => r.apiKey === apiKey);
  if (!range) return null;
  const v = Math.min(range.maxVersion, clientMax);
  return v >= Math.max(range.minVersion, clientMin) ? v : null;
}
