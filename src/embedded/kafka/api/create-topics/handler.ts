import { ErrorCode } from '../../protocol/errors';
import { repeatedNames } from '../repeated-names';
import type { ApiHandler } from '../types';
import type { CreatableTopic, CreateTopicsRequest, CreateTopicsResponse } from './codec';
import type { BrokerContext } from '../../broker';

export const handleCreateTopics: ApiHandler<CreateTopicsRequest, CreateTopicsResponse> = (broker, req, ctx) => {
  const repeated = repeatedNames(req.topics.map((t) => t.name));
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => {
      if (repeated.has(t.name)) return { name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'topic named twice in one request' };
      const verdict = broker.authorizer.topic(ctx.session.principal, 'create', t.name);
      if (verdict.errorCode !== ErrorCode.NONE) return { name: t.name, errorCode: verdict.errorCode, errorMessage: verdict.message ?? null };
      const { errorCode, errorMessage } = create(broker, t, req.validateOnly);
      return { name: t.name, errorCode, errorMessage };
    }),
  };
};

function create(broker: BrokerContext, t: CreatableTopic, validateOnly: boolean): { errorCode: number; errorMessage: string | null } {
  const node = broker.nodeId;
  if (t.replicationFactor > 1) {
    return { errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: `replication factor ${t.replicationFactor} larger than the 1 available broker` };
  }
  if (t.replicationFactor === 0 || t.replicationFactor < -1)
    return { errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: 'replication factor must be 1' };
  let partitions = t.numPartitions === -1 ? broker.options.defaultPartitions : t.numPartitions;
  if (t.assignments.length > 0) {
    const valid = t.assignments.every((a, i) => a.partitionIndex === i && a.brokerIds.length === 1 && a.brokerIds[0] === node);
    if (!valid || t.numPartitions !== -1)
      return { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: `partitions can only be assigned to broker ${node}` };
    partitions = t.assignments.length;
  }
  const configs: Record<string, string> = {};
  for (const c of t.configs) if (c.value !== null) configs[c.name] = c.value;
  const check = broker.logs.validateNewTopic(t.name, partitions, configs);
  if (check.errorCode !== ErrorCode.NONE) return { errorCode: check.errorCode, errorMessage: check.message ?? null };
  if (!validateOnly) broker.logs.createTopic(t.name, partitions, configs);
  return { errorCode: ErrorCode.NONE, errorMessage: null };
}
