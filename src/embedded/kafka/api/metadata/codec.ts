import type { Writer } from '../../protocol/writer';
import type { ApiCodec } from '../types';

/**
 * Metadata (key 3), v0–6. v0: an empty topic list means all topics. v1: topics null = all (empty = none);
 * controller id, rack, is_internal. v2: cluster id. v3: throttle time. v4: allow_auto_topic_creation.
 * v5: offline replicas. v6: same format as v5. Not offered: v7+ (leader epochs, which librdkafka then
 * validates).
 */
export interface MetadataRequest {
  topics: string[] | null;
  allowAutoTopicCreation: boolean;
}

export interface MetadataPartition {
  errorCode: number;
  partitionIndex: number;
  leaderId: number;
  replicaNodes: number[];
  isrNodes: number[];
  offlineReplicas: number[];
}

export interface MetadataTopic {
  errorCode: number;
  name: string;
  isInternal: boolean;
  partitions: MetadataPartition[];
}

export interface MetadataResponse {
  throttleTimeMs: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topics: MetadataTopic[];
}

const int32s = (w: Writer, xs: number[]): Writer => w.array(xs, (w, x) => w.int32(x));

export const metadataCodec: ApiCodec<MetadataRequest, MetadataResponse> = {
  key: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 6,
  decodeRequest(r, version) {
    const named = r.nullableArray((r) => r.string());
    const topics = version === 0 && named?.length === 0 ? null : named;
    const allowAutoTopicCreation = version >= 4 ? r.bool() : true;
    return { topics, allowAutoTopicCreation };
  },
  encodeResponse(w, version, res) {
    if (version >= 3) w.int32(res.throttleTimeMs);
    w.array(res.brokers, (w, b) => {
      w.int32(b.nodeId).string(b.host).int32(b.port);
      if (version >= 1) w.nullableString(b.rack);
    });
    if (version >= 2) w.nullableString(res.clusterId);
    if (version >= 1) w.int32(res.controllerId);
    w.array(res.topics, (w, t) => {
      w.int16(t.errorCode).string(t.name);
      if (version >= 1) w.bool(t.isInternal);
      w.array(t.partitions, (w, p) => {
        w.int16(p.errorCode).int32(p.partitionIndex).int32(p.leaderId);
        int32s(w, p.replicaNodes);
        int32s(w, p.isrNodes);
        if (version >= 5) int32s(w, p.offlineReplicas);
      });
    });
  },
};
