/**
 * The partition of a record, chosen as kafkajs's DefaultPartitioner and the Java clients choose it, so that one
 * key lands on one partition whichever of them produced it: murmur2 of the key's UTF-8 bytes (seed 0x9747b28c),
 * made positive by masking the sign bit, modulo the partition count. Records without a key go round-robin from
 * a random start per topic.
 */
import { randomInt } from 'node:crypto';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2): a signed 32-bit hash. */
export function murmur2(data: Buffer, length = data.length): number {
  let h = (SEED ^ length) | 0;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3;
  if (rest >= 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[whole]!, M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

const toPositive = (x: number): number => x & 0x7fffffff;

/** Where keys are written as UTF-8 to be hashed (every published record has one): no buffer per key. */
let scratch = Buffer.allocUnsafe(1024);

/** The partition (of `partitions`) a record with this key belongs to. */
export function partitionForKey(key: string, partitions: number): number {
  // A UTF-16 code unit takes at most 3 UTF-8 bytes, so the whole key always fits.
  if (key.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(key.length * 3);
  return toPositive(murmur2(scratch, scratch.write(key, 0, 'utf8'))) % partitions;
}

export class Partitioner {
  private readonly counters = new Map<string, number>();

  partition(topic: string, key: string | null, partitions: number): number {
    if (key !== null) return partitionForKey(key, partitions);
    const next = ((this.counters.get(topic) ?? randomInt(0x7fffffff)) + 1) | 0;
    this.counters.set(topic, next);
    return toPositive(next) % partitions;
  }
}
