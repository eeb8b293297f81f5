import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** An engine's JVM (or any server) started by the stack: its pid, and where its console output goes. */
export interface EngineProcess {
  name: string;
  pid: number;
  logFile: string;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  logFile: string;
}

/**
 * Starts a server in its own process group, detached, its output appended to `logFile`: it outlives the
 * command that started it (`deltabroker stack up`), and a stop reaches the children a launcher script forks.
 */
export function startProcess(options: StartOptions): EngineProcess {
  const out = openSync(options.logFile, 'a');
  try {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', out, out],
    });
    if (child.pid === undefined) throw new Error(`${options.name}: ${options.command} did not start`);
    child.unref();
    return { name: options.name, pid: child.pid, logFile: options.logFile };
  } finally {
    closeSync(out);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** SIGTERM (a clean shutdown for every engine here), then SIGKILL if it is still running after `graceMs`. */
export async function stopProcess(pid: number, graceMs = 30_000): Promise<void> {
  if (!isAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) signalGroup(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(50);
}

/** SIGKILL at once: the fault the scale-out tests inject. */
export async function killProcess(pid: number): Promise<void> {
  signalGroup(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(20);
}

/** Polls `ready` until it answers true; fails early when the process died, naming its log. */
export async function waitUntilReady(engine: EngineProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isAlive(engine.pid)) throw new Error(`${engine.name} exited before it was ready; see ${engine.logFile}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${engine.name} was not ready within ${timeoutMs} ms; see ${engine.logFile}`);
    await sleep(250);
  }
}

/** Whether something accepts TCP connections on host:port. */
export function portAccepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether GET url answers 2xx. */
export async function httpAnswers(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await response.body?.cancel();
  return response.ok;
}

/** `count` ports that were free a moment ago on loopback (the engines bind them right after). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
