import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import path from 'node:path';
import { serviceEnginesEnv } from './engines';

const ENTRY = path.resolve(__dirname, 'cli-entry.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `deltabroker <args>` as its own process (as an operator would, beside a running service). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', ENTRY, ...args], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, LOG_FORMAT: 'json', ...serviceEnginesEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outputOf(child, timeoutMs);
}

/** What a child process printed and how it ended; killed after timeoutMs. */
export function outputOf(child: ChildProcessByStdio<Writable | null, Readable, Readable>, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
