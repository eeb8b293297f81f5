/**
 * Reason codes of stage `decode` rejections: what was wrong with the bytes of a record value. Published in
 * the Rejection record's `reason`; stable, never reused.
 */
export const DECODE_REASONS = {
  /** The value was null or empty (a tombstone): nothing to decode. */
  DECODE_EMPTY_VALUE: 'the record has no value',
  /** The first byte is not the Confluent wire format's magic byte 0, or the value is shorter than its 5-byte header. */
  DECODE_MAGIC_BYTE: 'the value is not in the Confluent wire format (magic byte 0, 4-byte schema id, Avro)',
  /** The schema id in the header is not known to the schema registry. */
  DECODE_UNKNOWN_SCHEMA: 'the schema id is not known to the schema registry',
  /** The schema id names a schema that is not Avro (JSON Schema, Protobuf). */
  DECODE_UNSUPPORTED_SCHEMA: 'the schema id names a schema that is not Avro',
  /** The Avro bytes do not decode with the writer schema (truncated, trailing bytes, or an invalid value). */
  DECODE_INVALID_AVRO: 'the Avro bytes are not valid for their schema',
  /** The writer schema cannot be read as the consumer's reader schema. */
  DECODE_INCOMPATIBLE_SCHEMA: "the writer schema cannot be resolved into the consumer's reader schema",
  /**
   * The record batch holding the record cannot be read by this consumer (a compression codec it lacks: snappy,
   * lz4, zstd), so every record of the batch is rejected with its offset and no bytes.
   */
  DECODE_UNREADABLE_BATCH: 'the record batch uses a compression codec this consumer cannot read',
} as const;

export type DecodeReason = keyof typeof DECODE_REASONS;
