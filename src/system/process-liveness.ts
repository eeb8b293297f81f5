import { readFileSync } from 'node:fs';

/**
 * Whether a process still runs, in a way a stale PID cannot fool: a zombie (killed, not yet reaped by its parent)
 * counts as gone, and when the process's start time was recorded with its PID, a new process that reuses the
 * PID counts as gone too. Linux answers from /proc; elsewhere only the signal-0 probe is available.
 */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); undefined where /proc is absent. */
  startTime?: string;
}

function procStat(pid: number): { state: string; startTime: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
}

const hasProc = (): boolean => procStat(process.pid) !== undefined;

/** This process's identity, to be written where another process may later check it. */
export function ownIdentity(): ProcessIdentity {
  const stat = procStat(process.pid);
  return stat ? { pid: process.pid, startTime: stat.startTime } : { pid: process.pid };
}

export function isRunning(process_: ProcessIdentity): boolean {
  const { pid, startTime } = process_;
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (hasProc()) {
    const stat = procStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
    return startTime === undefined || stat.startTime === startTime;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const formatIdentity = (p: ProcessIdentity): string => (p.startTime === undefined ? String(p.pid) : `${p.pid} ${p.startTime}`);

export function parseIdentity(text: string): ProcessIdentity {
  const [pid, startTime] = text.trim().split(/\s+/);
  return startTime === undefined ? { pid: Number(pid) } : { pid: Number(pid), startTime };
}
