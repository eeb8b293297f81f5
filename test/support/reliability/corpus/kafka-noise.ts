import net from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import type { Prng } from '../prng';

/**
 * Records that are not DeltaEnvelopes: random bytes, the Confluent framing with an unknown schema id, a known id
 * with a cut or garbled Avro body, empty values. Each must become a Rejection (stage `decode`), never an event.
 */
export function noiseRecords(count: number, prng: Prng, deltaSchemaId: number): { key: string | null; value: Buffer }[] {
  const framed = (schemaId: number, body: Buffer): Buffer => {
    const head = Buffer.alloc(5);
    head.writeUInt32BE(schemaId >>> 0, 1);
    return Buffer.concat([head, body]);
  };
  return Array.from({ length: count }, () => {
    const shape = prng.int(0, 5);
    const value =
      shape === 0
        ? prng.bytes(prng.int(1, 2_000))
        : shape === 1
          ? framed(prng.int(10_000, 2 ** 31), prng.bytes(prng.int(0, 200)))
          : shape === 2
            ? framed(deltaSchemaId, prng.bytes(prng.int(0, 300)))
            : shape === 3
              ? framed(deltaSchemaId, Buffer.alloc(0))
              : shape === 4
                ? Buffer.from(JSON.stringify({ id: 'bad-json-delta', tenant: 'acme', entity: 'merchant_account', operation: 'create', key: 'bad-json' }))
                : prng.bytes(prng.int(0, 4));
    return { key: prng.chance(0.5) ? `acme/merchant_account/bad-${prng.string(6)}` : null, value };
  });
}

export async function publishNoise(brokers: string[], records: { key: string | null; value: Buffer }[]): Promise<void> {
  const kafka = new Kafka({ clientId: 'reliability-noise', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 50) await producer.send({ topic: 'deltas', acks: -1, messages: records.slice(i, i + 50) });
  } finally {
    await producer.disconnect();
  }
}

export interface PortNoiseResult {
  connections: number;
  /** Connections the broker closed on its own (a malformed frame closes its connection). */
  closedByBroker: number;
  /** Bytes the broker answered with in total (well-framed requests of unknown APIs get an error response). */
  answeredBytes: number;
}

/** A frame: int32 size, then an apiKey/apiVersion/correlationId header with random values and a random body. */
function randomFrame(prng: Prng): Buffer {
  const body = Buffer.concat([Buffer.alloc(8), prng.bytes(prng.int(0, 300))]);
  body.writeInt16BE(prng.int(-5, 80), 0);
  body.writeInt16BE(prng.int(-1, 20), 2);
  body.writeInt32BE(prng.int(0, 1_000_000), 4);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

function noiseBytes(prng: Prng): Buffer {
  const shape = prng.int(0, 5);
  const size = Buffer.alloc(4);
  size.writeInt32BE(prng.pick([0x7fffffff, -1, -2_147_483_648, 0, 1, 100_000_000]));
  if (shape === 0) return prng.bytes(prng.int(1, 4_096));
  if (shape === 1) return Buffer.concat([size, prng.bytes(prng.int(0, 64))]);
  if (shape === 2) return Buffer.concat(Array.from({ length: prng.int(1, 10) }, () => randomFrame(prng)));
  if (shape === 3) return randomFrame(prng).subarray(0, prng.int(1, 10));
  if (shape === 4) return Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  return Buffer.concat([randomFrame(prng), prng.bytes(prng.int(1, 100))]);
}

/** Writes `bytes` on a fresh connection; resolves whether the broker closed it (else we do, after `waitMs`). */
function sendOnce(port: number, bytes: Buffer, waitMs: number): Promise<{ closedByBroker: boolean; answered: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let byUs = false;
    let answered = 0;
    const timer = setTimeout(() => {
      byUs = true;
      socket.destroy();
    }, waitMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d: Buffer) => void (answered += d.length));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closedByBroker: !byUs, answered });
    });
  });
}

/** Random bytes and malformed Kafka frames on the broker's port, one connection each, ten at a time. */
export async function hammerBrokerPort(port: number, connections: number, prng: Prng): Promise<PortNoiseResult> {
  const result: PortNoiseResult = { connections, closedByBroker: 0, answeredBytes: 0 };
  for (let i = 0; i < connections; i += 10) {
    const payloads = Array.from({ length: Math.min(10, connections - i) }, () => noiseBytes(prng));
    for (const r of await Promise.all(payloads.map((b) => sendOnce(port, b, 300)))) {
      if (r.closedByBroker) result.closedByBroker++;
      result.answeredBytes += r.answered;
    }
  }
  return result;
}
