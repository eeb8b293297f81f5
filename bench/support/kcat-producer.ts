import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { reapedChildrenCpuMicros } from './cpu-time';

/**
 * librdkafka as an outside producer, through Debian's kcat (installed by .ci/run): a native client whose own
 * CPU is small beside the broker's and the service's, so its produce rate shows what they reach themselves.
 * kcat sends each record of a file (writeKcatInput), acks=all, and exits once every record is acknowledged.
 */
export const KCAT = '/usr/bin/kcat';

export const kcatAvailable = (): boolean => spawnSync(KCAT, ['-V']).status === 0;

/**
 * Where kcat's input splits into records (-D) and a record into key and value (-K). Values are binary (Avro), so
 * no single byte is free for this: kcat takes multi-byte delimiters (though none holding a NUL, as it measures
 * them with strlen), and these are ASCII's unit and record separators around text that Avro data does not hold.
 */
const KEY_END = Buffer.from('\x1f<kcat key end>\x1f', 'latin1');
const RECORD_END = Buffer.from('\x1e<kcat record end>\x1e', 'latin1');

export interface KcatRecord {
  readonly key: string | Buffer;
  readonly value: string | Buffer;
}

/**
 * Writes the records kcat will send to `file` (before any clock starts). Throws where kcat would split a record
 * elsewhere than its writer meant: it takes the first KEY_END in the record and the first RECORD_END in the input.
 */
export function writeKcatInput(file: string, records: Iterable<KcatRecord>): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const { key, value } of records) {
      const record = Buffer.concat([Buffer.from(key), KEY_END, Buffer.from(value), RECORD_END]);
      const keyBytes = Buffer.byteLength(key);
      if (record.indexOf(KEY_END) !== keyBytes || record.indexOf(RECORD_END) !== record.length - RECORD_END.length)
        throw new Error(`kcat input: the record of key ${key.toString()} holds one of kcat's delimiters`);
      fs.writeSync(fd, record);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Records of `valueBytes` bytes under 1,000 keys in `dir`; answers the file's path. */
export function kcatInput(dir: string, messages: number, valueBytes: number, name = 'kcat-input'): string {
  const input = path.join(dir, `${name}.bin`);
  const value = 'v'.repeat(valueBytes);
  writeKcatInput(
    input,
    Array.from({ length: messages }, (_, i) => ({ key: `k${i % 1000}`, value })),
  );
  return input;
}

export interface KcatOrder {
  readonly brokers: string[];
  readonly topic: string;
  /** The records (writeKcatInput). */
  readonly input: string;
  /** Headers on every record. */
  readonly headers?: Readonly<Record<string, string>>;
  /** librdkafka properties besides acks=all and the partitioner (`-X`). */
  readonly properties: Readonly<Record<string, string | number>>;
}

export interface KcatRun {
  /** From kcat's start to its exit, every record acknowledged. */
  readonly seconds: number;
  /** kcat's CPU, user + system, µs. */
  readonly cpuMicros: number;
}

/**
 * Runs kcat as a child of this process; its CPU is what this process's reaped children gained meanwhile, so no
 * other child of this process may exit during the run.
 */
export async function produceWithKcat(order: KcatOrder): Promise<KcatRun> {
  // murmur2 as the Java clients, kafkajs and the service partition keys (kcat's default is CRC32).
  const properties = { acks: 'all', partitioner: 'murmur2_random', ...order.properties };
  const args = [
    '-P',
    '-b',
    order.brokers.join(','),
    '-t',
    order.topic,
    ...['-K', KEY_END.toString('latin1'), '-D', RECORD_END.toString('latin1'), '-l'],
    ...Object.entries(order.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}=${value}`]),
    ...Object.entries(properties).flatMap(([name, value]) => ['-X', `${name}=${value}`]),
    order.input,
  ];
  const cpuBefore = reapedChildrenCpuMicros();
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(KCAT, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`kcat exited with ${code}: ${stderr.trim()}`))));
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, cpuMicros: reapedChildrenCpuMicros() - cpuBefore };
}
