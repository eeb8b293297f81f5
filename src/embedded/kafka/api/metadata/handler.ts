import { ErrorCode } from '../../protocol/errors';
import type { Topic } from '../../storage/log-manager';
import type { ApiHandler } from '../types';
import type { MetadataRequest, MetadataResponse, MetadataTopic } from './codec';

/** Null topics = every topic (never auto-creates: that is what `kcat -L` sends). */
export const handleMetadata: ApiHandler<MetadataRequest, MetadataResponse> = (broker, req, ctx) => {
  const node = broker.nodeId;
  const describe = (t: Topic): MetadataTopic => ({
    errorCode: ErrorCode.NONE,
    name: t.name,
    isInternal: false,
    partitions: t.partitions.map((p) => ({
      errorCode: ErrorCode.NONE,
      partitionIndex: p.partition,
      leaderId: node,
      replicaNodes: [node],
      isrNodes: [node],
      offlineReplicas: [],
    })),
  });
  const topics =
    req.topics === null
      ? broker.logs.topics().map(describe)
      : req.topics.map((name) => {
          const t = broker.topicForMetadata(name, req.allowAutoTopicCreation, ctx.session.principal);
          return typeof t === 'number' ? { errorCode: t, name, isInternal: false, partitions: [] } : describe(t);
        });
  return {
    throttleTimeMs: 0,
    brokers: [{ nodeId: node, host: broker.host, port: broker.port, rack: null }],
    clusterId: broker.clusterId,
    controllerId: node,
    topics,
  };
};
