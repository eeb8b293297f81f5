/**
 * Kafka's consumer protocol: the bytes consumer-group members exchange through JoinGroup (each member's
 * subscription) and SyncGroup (the leader's assignment). The broker never reads them; members do, so an
 * in-process member must write them as Kafka clients (kafkajs, the Java client) do to share a group with them.
 *   Subscription: version i16, topics [string], userData bytes (v1+ add owned partitions etc.; ignored here)
 *   Assignment:   version i16, [topic string, partitions [i32]], userData bytes
 * Pure: bytes in, bytes out.
 */
import { Reader } from '../../../embedded/kafka/protocol/reader';
import { Writer } from '../../../embedded/kafka/protocol/writer';

/** The assignor kafkajs offers by default; members of one group must share a protocol name. */
export const ROUND_ROBIN = 'RoundRobinAssigner';
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/** Partitions per topic. */
export type Assignment = ReadonlyMap<string, readonly number[]>;

export function encodeSubscription(topics: readonly string[]): Buffer {
  return new Writer(64)
    .int16(0)
    .array(topics, (w, t) => w.string(t))
    .bytes(Buffer.alloc(0))
    .toBuffer();
}

/** The topics a member subscribes to; null for bytes that are not a subscription. */
export function decodeSubscription(bytes: Buffer): string[] | null {
  try {
    const r = new Reader(bytes);
    r.int16();
    return r.array((x) => x.string());
  } catch {
    return null;
  }
}

export function encodeAssignment(assignment: Assignment): Buffer {
  return new Writer(64)
    .int16(0)
    .array([...assignment], (w, [topic, partitions]) => w.string(topic).array(partitions, (x, p) => x.int32(p)))
    .bytes(Buffer.alloc(0))
    .toBuffer();
}

/** An empty buffer is "nothing assigned", as Kafka clients read it; bytes that do not parse are null. */
export function decodeAssignment(bytes: Buffer): Assignment | null {
  if (bytes.length === 0) return new Map();
  try {
    const r = new Reader(bytes);
    r.int16();
    return new Map(r.array((x): [string, number[]] => [x.string(), x.array((y) => y.int32())]));
  } catch {
    return null;
  }
}
