/**
 * Kafka protocol error codes the broker answers with (the wire values of Kafka's `Errors` enum), and the
 * error thrown when a frame cannot be decoded. A malformed frame closes its connection only.
 */
export const ErrorCode = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  INVALID_REQUIRED_ACKS: 21,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  INVALID_REQUEST: 42,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  INVALID_PRODUCER_EPOCH: 47,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  KAFKA_STORAGE_ERROR: 56,
  UNKNOWN_PRODUCER_ID: 59,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
  INVALID_RECORD: 87,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A frame that cannot be decoded: the connection that sent it is closed. */
export class MalformedFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedFrameError';
  }
}
