import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importPKCS8, SignJWT } from 'jose';
import { Client } from 'pg';
import { processCpuMicros } from '../../../bench/support/cpu-time';
import { createFreshDatabase, type FreshDatabase } from '../postgres';
import { RestartableService, type ServiceDiagnosis } from '../reliability/logged-process';
import { freePort } from '../service-process';

export interface InstanceSpec {
  name: string;
  datacenter: string;
}

/** One deltabroker instance of the fleet: its own data directory and HTTP port, the fleet's everything else. */
export class Instance extends RestartableService {
  constructor(
    readonly spec: InstanceSpec,
    env: Record<string, string>,
  ) {
    super(env);
  }

  async stop(): Promise<void> {
    if (this.alive) await this.process?.stop();
  }

  /** CPU seconds the running process has used since its start (from /proc), or undefined. */
  cpuSeconds(): number | undefined {
    const pid = this.alive ? this.process?.child.pid : undefined;
    const micros = pid === undefined ? undefined : processCpuMicros(pid);
    return micros === undefined ? undefined : Math.round(micros / 1e6);
  }

  /**
   * The main thread's JavaScript stack now, through the inspector (SIGUSR1 opens it on the instance's own port, and
   * `node inspect` pauses and prints the backtrace): where a process that answers nothing spends its time. A
   * diagnostic report would not do: a thread looping on promises never lets the event loop see the signal.
   */
  async stackNow(): Promise<string[] | undefined> {
    const pid = this.alive ? this.process?.child.pid : undefined;
    const port = this.env.SCALE_OUT_INSPECT_PORT;
    if (pid === undefined || port === undefined) return undefined;
    process.kill(pid, 'SIGUSR1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const debuggerProcess = spawn(process.execPath, ['inspect', `127.0.0.1:${port}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    debuggerProcess.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    const say = (after: number, line: string): NodeJS.Timeout => setTimeout(() => debuggerProcess.stdin.write(`${line}\n`), after);
    const timers = [say(1_500, 'pause'), say(3_500, 'bt'), say(4_500, '.exit'), setTimeout(() => debuggerProcess.kill('SIGKILL'), 8_000)];
    await new Promise((resolve) => debuggerProcess.once('exit', resolve));
    timers.forEach(clearTimeout);
    const frames = output.split('\n').filter((l) => /^(debug> )?#\d+ /.test(l));
    return frames.length > 0 ? frames.map((l) => l.replace(/^debug> /, '')).slice(0, 12) : undefined;
  }
}

/**
 * Several instances of the service as they run in production: one database, one master key, one token issuer
 * (an ES256 key every instance trusts), the engines in `engineEnv`, and a data directory each.
 */
export class Fleet {
  readonly pg: Client;

  private constructor(
    readonly instances: Instance[],
    private readonly signingKey: string,
    private readonly db: FreshDatabase,
    private readonly dirs: string[],
  ) {
    this.pg = new Client({ connectionString: db.url });
    // The database is dropped, or its server stopped, under a client a failed suite left open: that must not end jest.
    this.pg.on('error', () => undefined);
  }

  static async create(specs: InstanceSpec[], engineEnv: Record<string, string>, entitiesDir: string): Promise<Fleet> {
    const db = await createFreshDatabase('dbscale');
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const shared = {
      ...engineEnv,
      DATABASE_URL: db.url,
      DELTABROKER_ENTITIES_DIR: entitiesDir,
      // A dead instance's partitions move to the others after this long without its heartbeats (the default is 30 s).
      DELTABROKER_KAFKA_SESSION_TIMEOUT_MS: '10000',
      DELTABROKER_MASTER_KEY: randomBytes(32).toString('base64'),
      DELTABROKER_JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      ...(process.env.TEST_SOFTHSM_DIR && {
        DELTABROKER_SOFTHSM_DIR: process.env.TEST_SOFTHSM_DIR,
        DELTABROKER_HSM_TOKEN_LABEL: process.env.TEST_HSM_TOKEN_LABEL ?? 'deltabroker-test',
        DELTABROKER_HSM_PIN: process.env.TEST_HSM_PIN ?? '',
      }),
    };
    const dirs: string[] = [];
    const instances: Instance[] = [];
    for (const spec of specs) {
      const dir = mkdtempSync(path.join(os.tmpdir(), `deltabroker-${spec.name}-`));
      dirs.push(dir);
      const inspectPort = await freePort();
      instances.push(
        new Instance(spec, {
          ...shared,
          // A stage that fails asks each instance for its JavaScript stack (stackNow), through an inspector of its own.
          NODE_OPTIONS: [process.env.NODE_OPTIONS, `--inspect-port=127.0.0.1:${inspectPort}`].filter(Boolean).join(' '),
          SCALE_OUT_INSPECT_PORT: String(inspectPort),
          DELTABROKER_DATA_DIR: dir,
          DELTABROKER_DATACENTER: spec.datacenter,
          DELTABROKER_HTTP_PORT: String(await freePort()),
        }),
      );
    }
    const fleet = new Fleet(instances, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), db, dirs);
    await fleet.pg.connect();
    return fleet;
  }

  /** A token every instance accepts (issuer and audience are the service's defaults). */
  async token(roles: string[], sub = 'scale-out', ttlSeconds = 3 * 3600): Promise<string> {
    return new SignJWT({ tenant: 'acme', roles })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject(sub)
      .setIssuer('deltabroker-dev')
      .setAudience('deltabroker')
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(await importPKCS8(this.signingKey, 'ES256'));
  }

  live(): Instance[] {
    return this.instances.filter((i) => i.alive);
  }

  async count(sql: string, params: unknown[] = []): Promise<number> {
    return Number((await this.pg.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);
  }

  /** Per instance, whether it runs, its errors and its /ready answer; and per projector and partition, its checkpoint. */
  async diagnosis(): Promise<{ instances: Record<string, ServiceDiagnosis & { ready: unknown }>; checkpoints: Record<string, string> }> {
    const rows = await this.pg
      .query<{ projector: string; topic: string; partition: number; next_offset: string }>(
        `select projector, topic, partition, next_offset from projection_checkpoints order by projector, topic, partition`,
      )
      .then((r) => r.rows)
      .catch(() => []);
    const ready = async (i: Instance): Promise<unknown> =>
      i.alive
        ? fetch(`${i.url}/ready`).then(
            (r) => r.json(),
            (e: unknown) => String(e),
          )
        : 'not running';
    return {
      instances: Object.fromEntries(await Promise.all(this.instances.map(async (i) => [i.spec.name, { ...i.diagnosis(), ready: await ready(i) }]))),
      checkpoints: Object.fromEntries(rows.map((r) => [`${r.projector} ${r.topic}/${r.partition}`, r.next_offset])),
    };
  }

  /** A line per instance (running or how it ended, its /ready checks, its most frequent errors): short enough for CI's summary. */
  async brief(): Promise<string[]> {
    const { instances } = await this.diagnosis();
    return Object.entries(instances).map(([name, d]) => {
      const state = d.alive ? 'running' : `exited (${d.exitCode ?? d.signal ?? '?'})`;
      const errors = Object.entries(d.errors)
        .sort(([, a], [, b]) => b.count - a.count)
        .slice(0, 3)
        .map(([msg, e]) => `${msg} ×${e.count}`);
      return `${name}: ${state}; ready ${JSON.stringify(d.ready).slice(0, 80)}; errors: ${errors.join('; ') || 'none'}`;
    });
  }

  /** Per running instance, its CPU seconds and its JavaScript stack now: whether a stalled instance spins, and where. */
  async stacks(): Promise<string[]> {
    const lines: string[] = [];
    for (const instance of this.instances.filter((i) => i.alive)) {
      const stack = await instance.stackNow().catch((e: unknown) => [`no stack: ${String(e)}`]);
      lines.push(`${instance.spec.name}: cpu ${instance.cpuSeconds() ?? '?'} s; stack: ${(stack ?? ['no stack']).map((f) => f.trim()).join(' | ')}`);
    }
    return lines;
  }

  /**
   * Stops every instance, then drops the database and the data directories even when a stop failed. Resolves with
   * how long each instance took to stop.
   */
  async dispose(): Promise<Record<string, number>> {
    const stopMs: Record<string, number> = {};
    const stops = await Promise.allSettled(
      this.instances.map(async (i) => {
        const started = Date.now();
        await i.stop();
        stopMs[i.spec.name] = Date.now() - started;
      }),
    );
    await this.pg.end().catch(() => undefined);
    await this.db.drop();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
    const failed = stops.flatMap((s, n) => (s.status === 'rejected' ? [`${this.instances[n]?.spec.name}: ${String(s.reason)}`] : []));
    if (failed.length > 0) throw new Error(`instances that did not stop cleanly:\n${failed.join('\n')}`);
    return stopMs;
  }
}
