import { spawn } from 'node:child_process';
import os from 'node:os';
import { startScratchPostgres } from '../test/support/postgres-server';
import { serviceNodeFlags, serviceThreadPool } from '../test/support/service-node';
import { compileBenchmarks } from './support/compiled-benchmarks';
import { formatTable, targetSummary, type Figure } from './support/figures';

/**
 * `npm run bench`: every benchmark, each in a child process of its own (a clean heap, its own peak RSS, no
 * ports or consumer groups left over from the one before), then one table of every figure beside the
 * baseline measured in the same run and their ratio. The children run the benchmarks compiled with the
 * service's sources (support/compiled-benchmarks.ts), as the service runs in a deployment.
 *
 *   npm run bench                 full run (about 5-8 minutes on 2 cores)
 *   npm run bench -- --quick      short run (under 2 minutes); or BENCH_QUICK=1
 *   npm run bench -- --only e2e,read
 *
 * PostgreSQL: a fresh database per benchmark on BENCH_PG_ADMIN_URL when given, else on an embedded server
 * started for the run (the same PostgreSQL 18 the service runs by default), dropped afterwards.
 */
interface Benchmark {
  readonly name: string;
  readonly title: string;
  run(quick: boolean): Promise<Figure[]>;
}

const BENCHMARKS: readonly Benchmark[] = [
  {
    name: 'e2e',
    title: 'end to end (deltas → persisted + projected + action topics)',
    run: async (quick) =>
      (await import('./end-to-end')).run(quick ? { deltas: 3000, httpDeltas: 600, loneWrites: 50 } : { deltas: 20_000, httpDeltas: 6000, loneWrites: 200 }),
  },
  {
    name: 'kafka4',
    title: 'end to end on a Kafka 4 node (kafkajs adapter; information)',
    run: async (quick) => (await import('./end-to-end-kafka')).run(quick ? { deltas: 3000, warmUp: 1000 } : { deltas: 20_000, warmUp: 5000 }),
  },
  {
    name: 'encrypt',
    title: 'encryption dispatch through HTTP, AES core',
    run: async (quick) => (await import('./encrypt')).run({ seconds: quick ? 2 : 5, concurrency: 16 }),
  },
  {
    name: 'hsm',
    title: 'PKCS#11 adapter on SoftHSM2',
    run: async (quick) => (await import('./hsm-core')).run({ seconds: quick ? 1 : 3, concurrency: 8 }),
  },
  {
    name: 'read',
    title: 'RQL reads through HTTP',
    run: async (quick) => (await import('./read')).run({ seconds: quick ? 2 : 5, concurrency: 16, rows: quick ? 10_000 : 50_000 }),
  },
  {
    name: 'project',
    title: 'Postgres table projection',
    run: async (quick) => (await import('./project')).run(quick ? { events: 5000, keys: 2500 } : { events: 20_000, keys: 10_000 }),
  },
  {
    name: 'broker',
    title: 'embedded Kafka-protocol broker',
    run: async (quick) => (await import('./broker')).run({ messages: quick ? 10_000 : 30_000, batch: 100, inFlight: 4, fsync: 'always' }),
  },
  {
    name: 'restart',
    title: 'start-up after a burst of events',
    run: async (quick) => (await import('./restart')).run({ events: quick ? 10_000 : 100_000 }),
  },
  {
    name: 'replay',
    title: 'replay rebuild',
    run: async (quick) => (await import('./replay')).run({ quick }),
  },
];

const FIGURES_MARK = '@@bench-figures ';
/** Child mode: runs one benchmark and prints its figures as one marked JSON line. */
async function child(name: string, quick: boolean): Promise<void> {
  const benchmark = BENCHMARKS.find((b) => b.name === name);
  if (!benchmark) throw new Error(`unknown benchmark ${name}`);
  const figures = await benchmark.run(quick);
  process.stdout.write(`${FIGURES_MARK}${JSON.stringify(figures)}\n`);
  // Clients of the services under test may keep timers alive; the figures are out.
  process.exit(0);
}

function runChild(compiledRunner: string, benchmark: Benchmark, quick: boolean): Promise<{ figures: Figure[]; seconds: number; error?: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const extra = (process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.length > 0);
    const args = [...serviceNodeFlags(), ...extra, compiledRunner, '--child', benchmark.name, ...(quick ? ['--quick'] : [])];
    const proc = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KAFKAJS_NO_PARTITIONER_WARNING: '1', UV_THREADPOOL_SIZE: serviceThreadPool() },
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    proc.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const line = out.split('\n').find((l) => l.startsWith(FIGURES_MARK));
      if (code === 0 && line) resolve({ figures: JSON.parse(line.slice(FIGURES_MARK.length)) as Figure[], seconds });
      else resolve({ figures: [], seconds, error: `exit ${code}: ${(err || out).trim().split('\n').slice(-5).join(' | ')}` });
    });
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const childAt = argv.indexOf('--child');
  if (childAt >= 0) return child(argv[childAt + 1] ?? '', quick);

  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((argv[onlyAt + 1] ?? '').split(',')) : undefined;
  const selected = BENCHMARKS.filter((b) => !only || only.has(b.name));
  const cpus = os.cpus();
  console.log(
    `deltabroker benchmarks (${quick ? 'quick' : 'full'} run): node ${process.version}, ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  const compiling = performance.now();
  process.stdout.write('  compiling the benchmarks with the service (tsc) … ');
  const compiledRunner = compileBenchmarks();
  console.log(`done (${((performance.now() - compiling) / 1000).toFixed(0)} s)`);
  const server = process.env.BENCH_PG_ADMIN_URL ? undefined : await startScratchPostgres();
  if (server) process.env.BENCH_PG_ADMIN_URL = server.adminUrl;
  const figures: Figure[] = [];
  const failures: string[] = [];
  for (const benchmark of selected) {
    process.stdout.write(`  ${benchmark.title} … `);
    const result = await runChild(compiledRunner, benchmark, quick);
    console.log(result.error ? `failed (${result.seconds.toFixed(0)} s)` : `${result.figures.length} figures (${result.seconds.toFixed(0)} s)`);
    if (result.error) failures.push(`${benchmark.name}: ${result.error}`);
    figures.push(...result.figures);
  }
  await server?.stop();
  console.log(`\n${formatTable(figures)}`);
  console.log(`\n${targetSummary(figures)}`);
  console.log(
    `ratio = figure / baseline: for rates higher is better; for CPU per unit of work and latencies lower is better; for RSS, growth over the idle service. Load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (failures.length > 0) {
    console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
