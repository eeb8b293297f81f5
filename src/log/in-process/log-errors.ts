/** The in-process write log's failures, as catalogue errors (stage `write-log`). */
import { DeltabrokerError } from '../../errors';

const STAGE = 'write-log';

/** A topic that does not exist: as with the kafkajs adapter, nothing creates it on the fly. */
export const unknownTopic = (topic: string): DeltabrokerError =>
  new DeltabrokerError('DB_INTERNAL', `topic '${topic}' does not exist on the embedded broker`, { stage: STAGE, field: 'topic', rule: 'exists', topic });

export const unknownPartition = (topic: string, partition: number): DeltabrokerError =>
  new DeltabrokerError('DB_INTERNAL', `topic '${topic}' has no partition ${partition}`, { stage: STAGE, field: 'partition', rule: 'exists', topic, partition });

/** A broker-side refusal of an append or topic change (Kafka error code kept for the operator). */
export const brokerRefused = (what: string, errorCode: number, message?: string): DeltabrokerError =>
  new DeltabrokerError('DB_INTERNAL', `the embedded broker refused ${what} (Kafka error ${errorCode})${message ? `: ${message}` : ''}`, {
    stage: STAGE,
    errorCode,
  });

/** The append is in the log but could not be made durable (fsync failed), or the broker stopped first. */
export const notDurable = (cause: unknown): DeltabrokerError =>
  new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'the embedded broker could not make the records durable', { stage: STAGE }, { cause });

export const brokerStopped = (): DeltabrokerError => new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'the embedded broker has stopped', { stage: STAGE });

export const logClosed = (): DeltabrokerError => new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'the write log is closed', { stage: STAGE });
