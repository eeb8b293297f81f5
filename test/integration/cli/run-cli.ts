/** Runs the deltabroker command in this process and collects what it printed (tests only). */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildCli } from '../../../src/cli';
import type { Config } from '../../../src/config';
import { serviceEnginesEnv } from '../../support/engines';

export async function runCli(config: Config, args: string[]): Promise<string> {
  let printed = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed += chunk.toString();
    return true;
  });
  try {
    await buildCli(() => config)
      .exitOverride()
      .parseAsync(args, { from: 'user' });
  } finally {
    spy.mockRestore();
  }
  return printed;
}

const ROOT = path.resolve(__dirname, '../../..');

/** Runs the command as its own process, as an operator would (TypeScript through tsx instead of the build). */
export function spawnCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', "require('./src/cli').main(process.argv.slice(1))", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...serviceEnginesEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}
