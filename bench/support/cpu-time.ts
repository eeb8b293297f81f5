import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';

/**
 * CPU time spent by the service's process and by the PostgreSQL server, so a phase can be given in CPU per delta:
 * unlike a rate, that figure hardly moves when other work shares this 2-core machine.
 */
export interface CpuSample {
  /** This process (it hosts the service), user + system, µs. */
  readonly service: number;
  /** The PostgreSQL server's processes, user + system, µs; undefined when the server is not on this machine. */
  readonly postgres: number | undefined;
}

const TICK_MICROS = 10_000; // USER_HZ is 100 on Linux

export async function postgresServerPid(db: Client): Promise<number | undefined> {
  try {
    const dir = await db.query<{ setting: string }>(`select setting from pg_settings where name = 'data_directory'`);
    const pid = Number(readFileSync(path.join(dir.rows[0]?.setting ?? '', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // a remote server, or its files are not readable here
  }
}

/** A /proc/<pid>/stat's fields after the command name, which sits in parentheses and may hold spaces: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17). */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** user + system µs of one running process (all its threads), from /proc; undefined when it is gone. */
export function processCpuMicros(pid: number): number | undefined {
  try {
    const fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
  } catch {
    return undefined;
  }
}

/**
 * user + system µs of this process's children that have exited and been waited for (Node waits for each as it
 * exits): a child's whole CPU, all its threads, counted once it is gone.
 */
export function reapedChildrenCpuMicros(): number {
  const fields = statFields(readFileSync('/proc/self/stat', 'utf8'));
  return (Number(fields[13]) + Number(fields[14])) * TICK_MICROS;
}

/**
 * user + system µs of the postmaster and its children (the backends), from /proc. A backend that exited (a closed
 * connection) is gone from /proc, but the postmaster has waited for it, so its CPU is in the postmaster's cutime
 * and cstime: counted there, the sum never falls between two samples.
 */
function treeCpuMicros(root: number): number | undefined {
  let ticks = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = statFields(stat);
    const pid = Number(entry);
    if (pid !== root && Number(fields[1]) !== root) continue;
    found = true;
    ticks += Number(fields[11]) + Number(fields[12]);
    if (pid === root) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return found ? ticks * TICK_MICROS : undefined;
}

export function sampleCpu(postgresPid: number | undefined): CpuSample {
  const own = process.cpuUsage();
  return { service: own.user + own.system, postgres: postgresPid === undefined ? undefined : treeCpuMicros(postgresPid) };
}

/**
 * "CPU per delta: service 95 µs, PostgreSQL 60 µs, clients 40 µs (2 cores 90 % busy)" between two samples; the
 * clients' part and the share of the machine when the clients' CPU and the phase's seconds are given.
 */
export function cpuPerDelta(before: CpuSample, after: CpuSample, deltas: number, clients?: { cpuMicros: number; seconds: number }): string {
  const per = (micros: number): string => `${Math.round(micros / deltas)} µs`;
  const service = after.service - before.service;
  const postgres = before.postgres === undefined || after.postgres === undefined ? undefined : after.postgres - before.postgres;
  let text = `CPU per delta: service ${per(service)}, PostgreSQL ${postgres === undefined ? 'not measured' : per(postgres)}`;
  if (clients === undefined) return text;
  text += `, clients ${per(clients.cpuMicros)}`;
  if (postgres === undefined) return text;
  const cores = availableParallelism();
  const busy = (service + postgres + clients.cpuMicros) / (clients.seconds * 1e6 * cores);
  return `${text} (${cores} cores ${Math.round(busy * 100)} % busy)`;
}

/** Runs `work` and answers its result with the wall-clock seconds and this process's CPU (user + system, µs) it took. */
export async function measured<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; cpuMicros: number }> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const value = await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { value, seconds, cpuMicros: used.user + used.system };
}
