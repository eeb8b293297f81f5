/**
 * Runs a command asynchronously and answers its stdout as bytes (rejecting with its stderr on a non-zero exit).
 * Asynchronous because the broker and registry under test live in the test's own process: a blocking call
 * would starve them.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export function runCommand(command: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8')}`));
    });
    child.stdin.end(input ?? '');
  });
}
