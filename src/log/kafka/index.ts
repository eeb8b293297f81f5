/** The Kafka adapter of the write log. Import it only from the composition root, the CLI and tests. */
export { KafkaWriteLog, openKafkaWriteLog, DEFAULT_REJECTIONS_TOPIC, type KafkaWriteLogOptions } from './write-log';
export { topicNameStrategy, type SubjectStrategy } from './publisher';
export { createTopics, ensureTopics } from './topics';
export { frame, unframe, MAGIC_BYTE, HEADER_SIZE, type Unframed } from './wire';
export { ValueCodec, type Decoded } from './value-codec';
export { KafkaLogAdmin, openKafkaLogAdmin, type KafkaLogAdminOptions } from './log-admin';
export { saslConfig, type KafkaSasl, type RegistryAuth } from './client-security';
