import { ErrorCode } from '../protocol/errors';
import { ALLOWED, type Authorizer, type KafkaPrincipal, type Verdict } from './authorizer';

/** Which topics and groups belong to the broker's owner (the service that embeds it). */
export interface ReservedResources {
  /** The SASL user that owns them. */
  readonly owner: string;
  /** A topic only the owner may produce to, create, alter or delete. */
  reservedTopic(topic: string): boolean;
  /** A reserved topic every client may still produce to (the service's inbox). */
  openForProduce(topic: string): boolean;
  /** A topic nobody may delete, the owner included: its records are the system of record. */
  undeletable(topic: string): boolean;
  /** A consumer group only the owner may join, commit or delete. */
  reservedGroup(group: string): boolean;
  /**
   * A transactional id only the owner may use or see: another client taking it would fence the owner's producer
   * (InitProducerId bumps its epoch), and ListTransactions would show it the ids to take.
   */
  reservedTransactionalId(transactionalId: string): boolean;
}

/**
 * An authorizer in Kafka's terms over ReservedResources: the owner may do everything but delete an
 * undeletable topic (POLICY_VIOLATION); others may read every topic, produce to open ones, and use every
 * topic, group and transactional id that is not reserved as on a Kafka cluster. Refusals carry Kafka's own error codes.
 */
export function reservedResourcesAuthorizer(resources: ReservedResources): Authorizer {
  const isOwner = (p: KafkaPrincipal): boolean => p.authenticated && p.name === resources.owner;
  return {
    topic(principal, action, topic): Verdict {
      if (action === 'delete' && resources.undeletable(topic)) {
        return { errorCode: ErrorCode.POLICY_VIOLATION, message: `topic '${topic}' holds the system of record and cannot be deleted` };
      }
      if (isOwner(principal) || !resources.reservedTopic(topic)) return ALLOWED;
      if (action === 'produce' && resources.openForProduce(topic)) return ALLOWED;
      return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, message: `topic '${topic}' belongs to the service; ${principal.name} may not ${action} it` };
    },
    group(principal, _action, group): Verdict {
      if (isOwner(principal) || !resources.reservedGroup(group)) return ALLOWED;
      return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, message: `group '${group}' belongs to the service` };
    },
    transactionalId(principal, id): Verdict {
      if (isOwner(principal) || !resources.reservedTransactionalId(id)) return ALLOWED;
      return { errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, message: `transactional id '${id}' belongs to the service` };
    },
  };
}
