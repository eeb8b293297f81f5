import { ErrorCode } from '../protocol/errors';
import { isControl } from '../protocol/control-batch';
import type { BatchHeader } from '../protocol/record-batch';

/** How many recent batches per producer and partition are remembered to answer retries (as Kafka). */
export const PRODUCER_WINDOW = 5;

interface RecentBatch {
  firstSeq: number;
  lastSeq: number;
  baseOffset: number;
}

interface ProducerEntry {
  epoch: number;
  recent: RecentBatch[];
}

export type SequenceCheck = { kind: 'append' } | { kind: 'duplicate'; baseOffset: number } | { kind: 'error'; errorCode: number };

const lastSequence = (h: BatchHeader): number => (h.baseSequence + h.lastOffsetDelta) % 2 ** 31;

/**
 * Idempotent-producer bookkeeping for one partition. Only batches with producerId >= 0 are checked
 * (kafkajs sends -1/0/0 and librdkafka -1/-1/-1 when not idempotent). A retry of one of the last five
 * batches is answered with its original offset; a gap is OUT_OF_ORDER_SEQUENCE_NUMBER; a producer the
 * partition has no state for (new, or state lost with a rolled segment) may start at any sequence.
 */
export class ProducerStateTable {
  private readonly producers = new Map<number, ProducerEntry>();

  check(h: BatchHeader): SequenceCheck {
    if (h.producerId < 0) return { kind: 'append' };
    const entry = this.producers.get(h.producerId);
    if (!entry) return { kind: 'append' };
    if (h.producerEpoch < entry.epoch) return { kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH };
    // A transaction marker carries no sequence; one of a newer epoch fences the older producer here.
    if (isControl(h)) return { kind: 'append' };
    if (h.producerEpoch > entry.epoch) {
      return h.baseSequence === 0 ? { kind: 'append' } : { kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
    }
    const last = lastSequence(h);
    const dup = entry.recent.find((b) => b.firstSeq === h.baseSequence && b.lastSeq === last);
    if (dup) return { kind: 'duplicate', baseOffset: dup.baseOffset };
    const newest = entry.recent[entry.recent.length - 1];
    const expected = newest ? (newest.lastSeq + 1) % 2 ** 31 : h.baseSequence;
    if (h.baseSequence !== expected) return { kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER };
    return { kind: 'append' };
  }

  record(h: BatchHeader, baseOffset: number): void {
    if (h.producerId < 0) return;
    let entry = this.producers.get(h.producerId);
    if (!entry || h.producerEpoch > entry.epoch) {
      entry = { epoch: h.producerEpoch, recent: [] };
      this.producers.set(h.producerId, entry);
    }
    if (isControl(h)) return;
    entry.recent.push({ firstSeq: h.baseSequence, lastSeq: lastSequence(h), baseOffset });
    if (entry.recent.length > PRODUCER_WINDOW) entry.recent.shift();
  }
}
