/**
 * The process's limit of open file descriptors. Every socket the embedded broker holds is one of them, and so is
 * every HTTP connection, PostgreSQL connection and segment file: a broker that accepted connections up to the
 * limit would leave the HTTP server unable to accept /health (EMFILE). Node has no getrlimit, so Linux's
 * /proc/self/limits is read; elsewhere the limit is unknown.
 */
import { readFileSync } from 'node:fs';

/** The soft limit of open files (Node raises it to the hard limit at start), or undefined when unknown or unlimited. */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  return soft === undefined || !/^\d+$/.test(soft) ? undefined : Number(soft);
}

/**
 * The connections a listener may hold: the configured cap, but never more than `share` of the process's open
 * files, so the rest of the service keeps descriptors for its own work however many clients connect.
 */
export function connectionCapWithin(configured: number, limit: number | undefined, share = 0.5): number {
  return limit === undefined ? configured : Math.max(1, Math.min(configured, Math.floor(limit * share)));
}
