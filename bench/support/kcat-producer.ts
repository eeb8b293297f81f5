import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ClientRun } from './broker-clients';

/**
 * librdkafka as an outside producer, through Debian's kcat (installed by .ci/run): a native client whose own
 * CPU is small beside the broker's, so its produce rate shows what the broker's produce path itself reaches.
 * kcat sends each line of a file as one record (`key:value`), acks=all, and exits once every record is
 * acknowledged.
 */
export const KCAT = '/usr/bin/kcat';

export const kcatAvailable = (): boolean => spawnSync(KCAT, ['-V']).status === 0;

export interface KcatOrder {
  readonly brokers: string[];
  readonly topic: string;
  readonly messages: number;
  /** Bytes of each value (printable, since kcat reads lines). */
  readonly valueBytes: number;
  /** Records per stored batch (librdkafka's `batch.num.messages`, per partition). */
  readonly recordsPerBatch: number;
  /** The records, one `key:value` line each (kcatInput). */
  readonly input: string;
}

/** Writes the records kcat will send into `dir` (before any clock starts); answers the file's path. */
export function kcatInput(dir: string, messages: number, valueBytes: number): string {
  const input = path.join(dir, 'kcat-input.txt');
  const value = 'v'.repeat(valueBytes);
  const fd = fs.openSync(input, 'w');
  for (let i = 0; i < messages; i++) fs.writeSync(fd, `k${i % 1000}:${value}\n`);
  fs.closeSync(fd);
  return input;
}

export async function produceWithKcat(order: KcatOrder): Promise<ClientRun> {
  const flags = ['-K', ':', '-l', '-X', 'acks=all', '-X', `batch.num.messages=${order.recordsPerBatch}`];
  const args = ['-P', '-b', order.brokers.join(','), '-t', order.topic, ...flags, order.input];
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(KCAT, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kcat exited with ${code}: ${stderr.trim()}`))));
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, bytes: order.messages * order.valueBytes, cpuSeconds: Number.NaN };
}
