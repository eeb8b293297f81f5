import { readdirSync, readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { sleep } from './resilient-producer';

export interface ResourceSample {
  /** Seconds since the sampler started. */
  at: number;
  rssBytes: number;
  /** V8's used heap, from the service's own `nodejs_heap_size_used_bytes`. */
  heapUsedBytes: number;
  /** V8's old space (`nodejs_heap_space_size_used_bytes{space="old"}`): it shrinks only at a major collection. */
  oldSpaceBytes: number;
  /** Memory of C++ objects bound to JavaScript ones (Buffers among them): RSS that is not the V8 heap. */
  externalBytes: number;
  openFds: number;
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

  private async sample(): Promise<Omit<ResourceSample, 'at'>> {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'))?.[1];
    if (!kb) throw new Error('no VmRSS in /proc status');
    const metrics = await (await fetch(`${this.url}/metrics`, { headers: { authorization: `Bearer ${this.metricsToken}` } })).text();
    const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1];
    const oldSpace = /^nodejs_heap_space_size_used_bytes\{space="old"\} (\S+)$/m.exec(metrics)?.[1];
    const external = /^nodejs_external_memory_bytes (\S+)$/m.exec(metrics)?.[1];
    if (!heap || !oldSpace || !external) throw new Error('no nodejs_heap_size_used_bytes, old-space or external figure in /metrics');
    const pg = await this.pg.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
    );
    return {
      rssBytes: Number(kb) * 1024,
      heapUsedBytes: Number(heap),
      oldSpaceBytes: Number(oldSpace),
      externalBytes: Number(external),
      openFds: readdirSync(`/proc/${this.pid}/fd`).length,
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
