import { spawn } from 'node:child_process';
import path from 'node:path';
import { POSITION_KEPT } from '../../../src/log/kafka/out-of-range-recovery';
import type { ServiceProcess } from '../service-process';
import { serveProcessArgs, serveProcessEnv } from '../service-node';

/** How long a SIGTERMed service may take to stop before it is killed and its stop fails. */
const STOP_GRACE_MS = 60_000;

export interface LoggedServiceProcess extends ServiceProcess {
  /** The service's log lines (pino JSON) since it was spawned, start-up included: where a slow restart spent its time. */
  lines: string[];
  /** The last few thousand characters the process wrote to stderr (an uncaught error's stack lands there). */
  stderrTail(): string;
}

/** Like startServiceProcess, but keeps every log line the process writes (up to `keep`, oldest dropped). */
export function startLoggedServiceProcess(env: Record<string, string>, timeoutMs: number, keep = 20_000): Promise<LoggedServiceProcess> {
  const child = spawn(process.execPath, serveProcessArgs(), {
    cwd: path.resolve(__dirname, '../../..'),
    env: serveProcessEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const killed = async (): Promise<void> => {
    if (running()) child.kill('SIGKILL');
    await exited;
  };
  // A stop that never ends would hold the suite's hooks until their timeout and hide why: it is killed and said.
  const stopped = async (): Promise<void> => {
    if (!running()) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_GRACE_MS)));
    const outcome = await Promise.race([exited, late]);
    clearTimeout(timer);
    const last = (): string =>
      lines
        .slice(-5)
        .map((l) => l.slice(0, 400))
        .join('\n');
    if (outcome === 'late') {
      await killed();
      throw new Error(`the service did not exit within ${STOP_GRACE_MS} ms of SIGTERM and was killed; its last lines:\n${last()}`);
    }
    // It exits 1 when its own shutdown deadline passed (its 'stop failed' line names the part it waited for).
    if (child.exitCode !== 0) throw new Error(`the service exited ${child.exitCode ?? child.signalCode} after SIGTERM; its last lines:\n${last()}`);
  };
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
          resolve({ child, url, lines, stderrTail: () => stderr, kill: killed, stop: stopped });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      // Its last error lines say why (the service logs JSON to stdout; stderr is mostly empty).
      const errors = lines.filter((l) => /"level":(50|60)/.test(l)).slice(-3);
      reject(new Error(`the service exited with ${code} before it listened: ${[...errors, stderr].join('\n')}`));
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

/** A service process on fixed settings that a suite kills and starts again at the same addresses. */
export class RestartableService {
  process: LoggedServiceProcess | undefined;

  constructor(readonly env: Record<string, string>) {}

  get url(): string {
    return `http://127.0.0.1:${this.env.DELTABROKER_HTTP_PORT}`;
  }
  get alive(): boolean {
    const child = this.process?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Starts the service; resolves with how long it took to listen (state restore included). */
  async start(): Promise<number> {
    const started = Date.now();
    this.process = await startLoggedServiceProcess(this.env, 180_000);
    return Date.now() - started;
  }

  async kill(): Promise<void> {
    await this.process?.kill();
  }

  /** Whether it runs, how it ended if not, and its errors since its last start: what a failed suite prints about it. */
  diagnosis(): ServiceDiagnosis {
    const child = this.process?.child;
    const errors: ServiceDiagnosis['errors'] = {};
    let kafkajsErrorLines = 0;
    let outOfRangeKept = 0;
    for (const line of this.process?.lines ?? []) {
      if (line.includes(POSITION_KEPT)) outOfRangeKept++;
      if (!/"level":(50|60)/.test(line)) continue;
      // kafkajs logs every refused heartbeat and connection of a rebalance or broker kill at error level: counted, not shown.
      if (line.includes('"library":"kafkajs"')) {
        kafkajsErrorLines++;
        continue;
      }
      const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? '?';
      const seen = errors[msg];
      errors[msg] = { count: (seen?.count ?? 0) + 1, first: seen?.first ?? line.slice(0, 1_500), last: line.slice(0, 1_500) };
    }
    return {
      alive: this.alive,
      ...(child?.exitCode !== null && child?.exitCode !== undefined && { exitCode: child.exitCode }),
      ...(child?.signalCode && { signal: child.signalCode }),
      kafkajsErrorLines,
      outOfRangeKept,
      errors,
      stderr: this.process?.stderrTail().slice(-2_000) ?? '',
    };
  }
}

export interface ServiceDiagnosis {
  alive: boolean;
  exitCode?: number;
  signal?: NodeJS.Signals;
  /** How many of its error lines since its last start came from kafkajs. */
  kafkajsErrorLines: number;
  /** How often a fetch answered out of range for a position the partition's leader held, which was kept (src/log/kafka/out-of-range-recovery.ts). */
  outOfRangeKept: number;
  /** Its own lines at level error or fatal, by message: how many, the first and the last. */
  errors: Record<string, { count: number; first: string; last: string }>;
  stderr: string;
}
