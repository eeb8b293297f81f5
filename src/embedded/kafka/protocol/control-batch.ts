import { crc32c } from './crc32c';
import { CRC_START, encodeRecordBatch, TRANSACTIONAL_FLAG, type BatchHeader } from './record-batch';
import { Writer } from './writer';

/** Attribute bit 5: the batch holds a control record (a transaction marker), not data. */
export const CONTROL_FLAG = 0x20;

export const isTransactional = (h: Pick<BatchHeader, 'attributes'>): boolean => (h.attributes & TRANSACTIONAL_FLAG) !== 0;
export const isControl = (h: Pick<BatchHeader, 'attributes'>): boolean => (h.attributes & CONTROL_FLAG) !== 0;

/** The control record types of a transaction marker (key field `type`). */
export const MarkerType = { ABORT: 0, COMMIT: 1 } as const;

/**
 * A transaction marker as Kafka writes it (KIP-98): a batch of one control record, transactional and control
 * bits set, the producer's id and epoch, no sequence. Key: version 0, type. Value: version 0, coordinator epoch.
 * Readers skip it; read_committed readers learn from it where an aborted transaction ends.
 */
export function encodeMarkerBatch(producerId: number, producerEpoch: number, commit: boolean, coordinatorEpoch = 0, timestamp = Date.now()): Buffer {
  const key = new Writer(4)
    .int16(0)
    .int16(commit ? MarkerType.COMMIT : MarkerType.ABORT)
    .toBuffer();
  const value = new Writer(6).int16(0).int32(coordinatorEpoch).toBuffer();
  const batch = encodeRecordBatch({ records: [{ key, value, timestamp }], producerId, producerEpoch, baseSequence: -1 });
  batch.writeInt16BE(batch.readInt16BE(21) | TRANSACTIONAL_FLAG | CONTROL_FLAG, 21);
  batch.writeUInt32BE(crc32c(batch, CRC_START), 17);
  return batch;
}
