import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { serveProcessArgs, serveProcessEnv } from './service-node';

export { freePort } from '../../src/system/free-port';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Every line the service wrote to stdout so far (JSON log lines). */
  lines: string[];
  /** SIGKILL: no shutdown hook runs. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  /**
   * The process's limit of open files (`ulimit -n`, soft and hard), as an operator's shell or unit file would set
   * it. Only the soft limit would not do: Node raises its soft limit to the hard one at start.
   */
  readonly fdLimit?: number;
}

/** Runs the service in its own process with `env`, and resolves once it listens. */
export function startServiceProcess(env: Record<string, string>, timeoutMs = 60_000, options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const node = [process.execPath, ...serveProcessArgs()];
  const [command, ...args] = options.fdLimit === undefined ? node : ['/bin/sh', '-c', `ulimit -n ${options.fdLimit} && exec "$0" "$@"`, ...node];
  const child = spawn(command as string, args, {
    cwd: path.resolve(__dirname, '../..'),
    env: serveProcessEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ended = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    let buffered = '';
    const lines: string[] = [];
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        const url = /"msg":"deltabroker is listening"/.test(line) ? (JSON.parse(line) as { url?: string }).url : undefined;
        if (url) {
          clearTimeout(timer);
          resolve({ child, url, lines, kill: () => ended('SIGKILL'), stop: () => ended('SIGTERM') });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before it listened: ${stderr.slice(-2000)}`));
    });
  });
}
