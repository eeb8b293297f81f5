import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ServiceProcess } from '../service-process';

const ENTRY = path.resolve(__dirname, '../serve-process.ts');

export interface LoggedServiceProcess extends ServiceProcess {
  /** The service's log lines (pino JSON) since it was spawned, start-up included: where a slow restart spent its time. */
  lines: string[];
}

/** Like startServiceProcess, but keeps every log line the process writes (up to `keep`, oldest dropped). */
export function startLoggedServiceProcess(env: Record<string, string>, timeoutMs: number, keep = 20_000): Promise<LoggedServiceProcess> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', ENTRY], {
    cwd: path.resolve(__dirname, '../../..'),
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ended = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        if (lines.length > keep) lines.shift();
        if (line.includes('"msg":"deltabroker is listening"')) {
          clearTimeout(timer);
          const url = (JSON.parse(line) as { url: string }).url;
          resolve({ child, url, lines, kill: () => ended('SIGKILL'), stop: () => ended('SIGTERM') });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before it listened: ${stderr}`));
    });
  });
}

/** The start-up steps of a log, each with the milliseconds since the first line (for a slow start). */
export function startupTimeline(lines: string[]): { ms: number; msg: string }[] {
  const parsed = lines.map((l) => {
    try {
      return JSON.parse(l) as { time?: number; msg?: string };
    } catch {
      return {};
    }
  });
  const first = parsed.find((p) => p.time !== undefined)?.time ?? 0;
  const timeline: { ms: number; msg: string }[] = [];
  for (const p of parsed) {
    if (p.time === undefined || p.msg === undefined) continue;
    timeline.push({ ms: p.time - first, msg: p.msg });
    if (p.msg === 'deltabroker is listening') break;
  }
  return timeline;
}
