/**
 * The in-process adapter of the write log: the embedded broker of this same process, used without a Kafka
 * client. Import it only from the composition root and tests.
 */
export { InProcessWriteLog, openInProcessWriteLog, type InProcessWriteLogOptions } from './write-log';
export { murmur2, partitionForKey } from './partitioner';
