import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../../auth/operator';
import type { Principal } from '../../auth/principal';
import { OPERATOR_ROLE } from '../../auth/roles';
import type { LogTopicsService, TopicScope } from '../../broker/log-topics';
import type { TopicMessagesService } from '../../broker/topic-messages';
import { DeltabrokerError } from '../../errors';

const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
const LIMIT = /^[0-9]{1,3}$/;

/**
 * The service role `operator` sees every topic and group, as /metrics shows them; a tenant's `admin` its own
 * persistence topics and the lag of the groups that read them.
 */
function scopeOf(principal: Principal | undefined, what: string): TopicScope {
  if (principal?.roles.includes(OPERATOR_ROLE)) return { kind: 'cluster' };
  return { kind: 'tenant', tenant: requireOperator(principal, what).tenant };
}

function topicParam(topic: string): string {
  if (!TOPIC.test(topic))
    throw new DeltabrokerError('DB_VALIDATION', 'topic is 1-249 letters, digits, . _ -', { field: 'topic', rule: 'pattern', stage: 'topics' });
  return topic;
}

/**
 * GET /admin/topics: topics with partitions and offsets; GET /admin/topics/:topic: its partitions and the lag of
 * each group that reads it, per partition (what `deltabroker topics list|describe` print); GET
 * /admin/topics/:topic/messages: a tenant admin's latest records of one of its persistence topics, decoded with
 * their schemas (records are tenant data, so the service role `operator` does not reach them).
 */
export function registerTopicRoutes(app: FastifyInstance, topics: LogTopicsService, messages: TopicMessagesService): void {
  app.get('/admin/topics', async (request) => ({ topics: await topics.list(scopeOf(request.principal, 'topics')) }));

  app.get<{ Params: { topic: string } }>('/admin/topics/:topic', async (request) =>
    topics.describe(scopeOf(request.principal, 'a topic'), topicParam(request.params.topic)),
  );

  app.get<{ Params: { topic: string }; Querystring: { limit?: string } }>('/admin/topics/:topic/messages', async (request) => {
    const { tenant } = requireOperator(request.principal, "a topic's messages");
    const { limit = '20' } = request.query;
    if (!LIMIT.test(limit))
      throw new DeltabrokerError('DB_VALIDATION', 'limit is a number of messages, 1-100', { field: 'limit', rule: 'range', stage: 'topics' });
    return messages.latest(tenant, topicParam(request.params.topic), Number(limit));
  });
}
