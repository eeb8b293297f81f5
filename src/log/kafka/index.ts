/** The Kafka adapter of the write log. Import it only from the composition root, the CLI and tests. */
export { KafkaWriteLog, openKafkaWriteLog, type KafkaWriteLogOptions } from './write-log';
export { createTopics, ensureTopics } from './topics';
export { KafkaLogAdmin, openKafkaLogAdmin, type KafkaLogAdminOptions } from './log-admin';
export { saslConfig, type KafkaSasl, type RegistryAuth } from './client-security';
