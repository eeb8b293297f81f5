/**
 * Showing replay progress: a one-line bar redrawn in place on a terminal, or a log line every few seconds
 * (and at every phase change) when the output is a file or a pipe.
 */
import type { Logger } from '../logger';
import type { ProgressListener, ProgressSnapshot, ReplayPhase } from './progress';

const BAR_WIDTH = 30;

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function progressLine(p: ProgressSnapshot): string {
  const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : p.phase === 'done' ? 1 : 0;
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  return `${p.phase.padEnd(11)} [${bar}] ${percent} ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')} events  ${p.rate.toLocaleString('en-US')}/s  ETA ${formatDuration(p.etaSeconds)}`;
}

/** Redraws the bar on `stream` (a TTY) at most every `everyMs`; `finish()` ends the line. */
export function terminalProgress(stream: NodeJS.WriteStream, everyMs = 100): { listener: ProgressListener; finish(): void } {
  let last = 0;
  let drawnPhase: ReplayPhase | undefined;
  let latest: ProgressSnapshot | undefined;
  const draw = (p: ProgressSnapshot): void => void stream.write(`\r${progressLine(p)}\x1b[K`);
  return {
    listener: (p) => {
      latest = p;
      const now = Date.now();
      if (now - last < everyMs && p.phase === drawnPhase) return;
      last = now;
      drawnPhase = p.phase;
      draw(p);
    },
    finish: () => {
      if (latest) draw(latest);
      stream.write('\n');
    },
  };
}

/** Calls `emit` at each phase change and at most every `everyMs` in between (plain lines for logs and pipes). */
export function periodicProgress(emit: (snapshot: ProgressSnapshot) => void, everyMs = 5000): ProgressListener {
  let last = 0;
  let phase: ReplayPhase | undefined;
  return (p) => {
    const now = Date.now();
    if (p.phase === phase && now - last < everyMs) return;
    last = now;
    phase = p.phase;
    emit(p);
  };
}

/** Progress as pino log lines. */
export const loggedProgress = (logger: Logger, everyMs = 5000): ProgressListener =>
  periodicProgress((p) => logger.info({ phase: p.phase, done: p.done, total: p.total, rate: p.rate, etaSeconds: p.etaSeconds }, 'replay progress'), everyMs);
