import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkoutRoot } from '../../src/stack/engine-cache';

/**
 * How the deployed service's Node runs, so that tests and benchmarks that host it in a process of their own run it
 * the same way: the flags of bin/deltabroker.js's first line (its heap limit, which decides how far V8 lets the heap
 * grow between collections) and the thread pool that file sets.
 */
export function serviceNodeFlags(): string[] {
  const shebang = readFileSync(path.join(checkoutRoot(), 'bin', 'deltabroker.js'), 'utf8').split('\n')[0] ?? '';
  return shebang.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** libuv's pool as bin/deltabroker.js sizes it, unless the environment gives one: `UV_THREADPOOL_SIZE`. */
export function serviceThreadPool(): string {
  return process.env.UV_THREADPOOL_SIZE || '16';
}

const SERVE_ENTRY = path.resolve(__dirname, 'serve-process.ts');

/** Node's arguments for the service from its sources (`serve-process.ts` through tsx), with the deployed flags. */
export function serveProcessArgs(): string[] {
  return [...serviceNodeFlags(), '--require', 'tsx/cjs', SERVE_ENTRY];
}

/** The environment of such a process: this one's, info-level logs, the deployed thread pool, then `env`. */
export function serveProcessEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, LOG_LEVEL: 'info', UV_THREADPOOL_SIZE: serviceThreadPool(), ...env };
}
