import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Client } from 'pg';
import { sleep } from './resilient-producer';

export interface ResourceSample {
  /** Seconds since the sampler started. */
  at: number;
  rssBytes: number;
  /** Of the RSS, anonymous memory (heap, malloc, stacks) and mapped files (the binary, libraries): /proc status. */
  rssAnonBytes: number;
  rssFileBytes: number;
  /** V8's heap as committed (`nodejs_heap_size_total_bytes`). */
  heapTotalBytes: number;
  /** Each V8 space's committed bytes (`nodejs_heap_space_size_total_bytes`), by space. */
  spaceTotals: Record<string, number>;
  /** V8's used heap, from the service's own `nodejs_heap_size_used_bytes`. */
  heapUsedBytes: number;
  /** V8's old space (`nodejs_heap_space_size_used_bytes{space="old"}`): it shrinks only at a major collection. */
  oldSpaceBytes: number;
  /** Memory of C++ objects bound to JavaScript ones (Buffers among them): RSS that is not the V8 heap. */
  externalBytes: number;
  /** Open descriptors but the HTTP connections clients hold to the service (`httpConnections`). */
  openFds: number;
  /**
   * Connections accepted on the service's HTTP port. Counted apart: their number follows the load's clients, which
   * open more while answers are slow and keep them idle for seconds (30 more sockets at the end of one soak than
   * after its warm-up, every other descriptor unchanged), not anything the service keeps.
   */
  httpConnections: number;
  /** Client connections to the service's database other than the sampler's own (autovacuum workers left out). */
  pgConnections: number;
}

/**
 * Samples the service process about once a second: RSS and open descriptors from /proc, the V8 heap from
 * `GET /metrics` (a token with the `metrics` role), PostgreSQL connections from pg_stat_activity.
 */
export class ResourceSampler {
  readonly samples: ResourceSample[] = [];
  /** Samples that could not be taken (a /metrics or PostgreSQL failure is an error of the run too). */
  readonly errors: string[] = [];
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly pid: number,
    private readonly url: string,
    private readonly metricsToken: string,
    private readonly pg: Client,
  ) {}

  start(): void {
    const started = Date.now();
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const tick = Date.now();
        try {
          this.samples.push({ at: (tick - started) / 1000, ...(await this.sample()) });
        } catch (error) {
          this.errors.push(String(error));
        }
        await sleep(Math.max(0, 1_000 - (Date.now() - tick)));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The process's open descriptors, and how many of them are TCP connections on the service's HTTP port. */
  private descriptors(): { open: number; http: number } {
    const port = Number(new URL(this.url).port);
    const onPort = new Set<string>();
    for (const table of ['tcp', 'tcp6']) {
      let text: string;
      try {
        text = readFileSync(`/proc/${this.pid}/net/${table}`, 'utf8');
      } catch {
        continue; // no IPv6 in this kernel
      }
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode: the local port is hex after ':'.
      for (const line of text.split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        const local = fields[1];
        const inode = fields[9];
        if (local && inode && parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && fields[3] !== '0A') onPort.add(inode);
      }
    }
    const fds = readdirSync(`/proc/${this.pid}/fd`);
    let http = 0;
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${this.pid}/fd/${fd}`))?.[1];
        if (inode && onPort.has(inode)) http++;
      } catch {
        // closed between the listing and the link
      }
    }
    return { open: fds.length, http };
  }

  private async sample(): Promise<Omit<ResourceSample, 'at'>> {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    const anonKb = /RssAnon:\s+(\d+) kB/.exec(status)?.[1];
    const fileKb = /RssFile:\s+(\d+) kB/.exec(status)?.[1];
    if (!kb || !anonKb || !fileKb) throw new Error('no VmRSS, RssAnon or RssFile in /proc status');
    const metrics = await (await fetch(`${this.url}/metrics`, { headers: { authorization: `Bearer ${this.metricsToken}` } })).text();
    const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1];
    const oldSpace = /^nodejs_heap_space_size_used_bytes\{space="old"\} (\S+)$/m.exec(metrics)?.[1];
    const external = /^nodejs_external_memory_bytes (\S+)$/m.exec(metrics)?.[1];
    const heapTotal = /^nodejs_heap_size_total_bytes (\S+)$/m.exec(metrics)?.[1];
    const spaceTotals = Object.fromEntries(
      [...metrics.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([a-z_]+)"\} (\S+)$/gm)].map((m) => [m[1] as string, Number(m[2])]),
    );
    if (!heap || !oldSpace || !external || !heapTotal) throw new Error('no nodejs_heap_size_used_bytes, old-space, external or heap-total figure in /metrics');
    const pg = await this.pg.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
    );
    const { open, http } = this.descriptors();
    return {
      rssBytes: Number(kb) * 1024,
      rssAnonBytes: Number(anonKb) * 1024,
      rssFileBytes: Number(fileKb) * 1024,
      heapTotalBytes: Number(heapTotal),
      spaceTotals,
      heapUsedBytes: Number(heap),
      oldSpaceBytes: Number(oldSpace),
      externalBytes: Number(external),
      openFds: open - http,
      httpConnections: http,
      pgConnections: Number(pg.rows[0]?.n ?? 0),
    };
  }
}

/**
 * V8's old space right after each major collection from `from` seconds on: samples where it fell by more than 5 %
 * since the previous one (only a major collection shrinks it). The used heap is a sawtooth (here about 60 → 95 MiB
 * over a minute and a half, then a major collection), so a 10 s median only says where in a tooth the window fell;
 * the old space after a collection is what the process keeps alive, and is what grows when it leaks.
 */
export function oldSpaceAfterCollections(samples: ResourceSample[], from: number): number[] {
  const after: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const [previous, current] = [samples[i - 1] as ResourceSample, samples[i] as ResourceSample];
    if (current.at >= from && current.oldSpaceBytes < 0.95 * previous.oldSpaceBytes) after.push(current.oldSpaceBytes);
  }
  return after;
}
