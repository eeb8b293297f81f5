import { ErrorCode } from '../../protocol/errors';
import { repeatedNames } from '../repeated-names';
import type { ApiHandler } from '../types';
import type { CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopic } from './codec';
import type { BrokerContext } from '../../broker';

/** New partitions start empty at offset 0; existing ones are untouched. Keys may now map to other partitions. */
export const handleCreatePartitions: ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> = (broker, req, ctx) => {
  const repeated = repeatedNames(req.topics.map((t) => t.name));
  return {
    throttleTimeMs: 0,
    results: req.topics.map((t) => {
      if (repeated.has(t.name)) return { name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'topic named twice in one request' };
      const verdict = broker.authorizer.topic(ctx.session.principal, 'alter', t.name);
      if (verdict.errorCode !== ErrorCode.NONE) return { name: t.name, errorCode: verdict.errorCode, errorMessage: verdict.message ?? null };
      return { name: t.name, ...grow(broker, t, req.validateOnly) };
    }),
  };
};

function grow(broker: BrokerContext, t: CreatePartitionsTopic, validateOnly: boolean): { errorCode: number; errorMessage: string | null } {
  const check = broker.logs.validatePartitionIncrease(t.name, t.count);
  if (check.errorCode !== ErrorCode.NONE) return { errorCode: check.errorCode, errorMessage: check.message ?? null };
  if (t.assignments !== null && t.assignments.length > 0) {
    const added = t.count - broker.logs.topic(t.name)!.partitions.length;
    const node = broker.nodeId;
    const valid = t.assignments.length === added && t.assignments.every((a) => a.brokerIds.length === 1 && a.brokerIds[0] === node);
    if (!valid) return { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: `each new partition can only be assigned to broker ${node}` };
  }
  if (!validateOnly) broker.logs.addPartitions(t.name, t.count);
  return { errorCode: ErrorCode.NONE, errorMessage: null };
}
