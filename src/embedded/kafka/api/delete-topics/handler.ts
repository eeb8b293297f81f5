import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { DeleteTopicsRequest, DeleteTopicsResponse } from './codec';

/** Deletes topics and the offsets groups committed for them. */
export const handleDeleteTopics: ApiHandler<DeleteTopicsRequest, DeleteTopicsResponse> = async (broker, req, ctx) => {
  const responses = req.topicNames.map((name) => {
    const verdict = broker.authorizer.topic(ctx.session.principal, 'delete', name);
    if (verdict.errorCode !== ErrorCode.NONE) return { name, errorCode: verdict.errorCode };
    return { name, errorCode: broker.logs.deleteTopic(name) ? ErrorCode.NONE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  });
  for (const r of responses) if (r.errorCode === ErrorCode.NONE) await broker.groups.offsetStore.deleteTopic(r.name);
  return { throttleTimeMs: 0, responses };
};
