import { ErrorCode } from '../protocol/errors';

/** Who a connection is: a SASL user once authenticated, ANONYMOUS before (allowed only where SASL is optional). */
export interface KafkaPrincipal {
  readonly name: string;
  readonly authenticated: boolean;
}

export const ANONYMOUS: KafkaPrincipal = { name: 'ANONYMOUS', authenticated: false };

/** What a request does to a topic. Reading (Fetch, ListOffsets, Metadata, DescribeConfigs) is open to every principal. */
export type TopicAction = 'produce' | 'create' | 'delete' | 'alter';
/** What a request does to a consumer group: `join` covers JoinGroup, SyncGroup, Heartbeat and LeaveGroup. */
export type GroupAction = 'join' | 'commit' | 'delete';

/** NONE, or the Kafka error code a refusal is answered with and why. */
export interface Verdict {
  errorCode: number;
  message?: string;
}

export const ALLOWED: Verdict = { errorCode: ErrorCode.NONE };

/**
 * Decides what a principal may do. The broker asks before every write to a topic or group; the policy itself
 * (which topics and groups are whose) belongs to whoever embeds the broker.
 */
export interface Authorizer {
  topic(principal: KafkaPrincipal, action: TopicAction, topic: string): Verdict;
  group(principal: KafkaPrincipal, action: GroupAction, group: string): Verdict;
  /** Using a transactional id (InitProducerId and every request of its transactions) or seeing it (List/DescribeTransactions). */
  transactionalId(principal: KafkaPrincipal, transactionalId: string): Verdict;
}

/** The broker without a policy: every principal may do everything, as a Kafka cluster without an authorizer. */
export const ALLOW_ALL: Authorizer = { topic: () => ALLOWED, group: () => ALLOWED, transactionalId: () => ALLOWED };
