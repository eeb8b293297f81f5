/**
 * What every write-log adapter shares: the Confluent wire format, the registry-backed Avro value codec, the
 * subject strategy, and decoding fetched records into records or `decode` rejections.
 */
export { frame, unframe, schemaIdAt, MAGIC_BYTE, HEADER_SIZE, type Unframed } from './wire';
export { ValueCodec, type Decoded, type ValueCodecOptions, type WriterLookup } from './value-codec';
export { topicNameStrategy, type SubjectStrategy } from './subject-strategy';
export { DEFAULT_REJECTIONS_TOPIC, decodeRawRecords, decodeRejection, rejectionRecords, type DecodedBatch, type RawRecord } from './decode-records';
export type { WriteLogOptions } from './log-options';
