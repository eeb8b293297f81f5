import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { checkoutRoot } from '../../src/stack/engine-cache';

/** Where tsconfig.bench.json compiles the benchmarks and the service's sources (ignored by git, with .cache/). */
const OUT_DIR = path.join(checkoutRoot(), '.cache', 'bench-build');

/**
 * Compiles the benchmarks with the service's sources, as `npm run build` compiles the service, and answers the
 * compiled runner (bench/run.js). The benchmarks' children run that rather than TypeScript under tsx: the service
 * is measured as `npm start` runs it, without a loader's memory in its RSS (about 30 MiB after start) or its
 * transforms in its CPU.
 */
export function compileBenchmarks(): string {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(checkoutRoot(), 'tsconfig.bench.json')], {
    encoding: 'utf8',
  });
  if (tsc.status !== 0) throw new Error(`compiling the benchmarks failed:\n${tsc.stdout}${tsc.stderr}`);
  return path.join(OUT_DIR, 'bench', 'run.js');
}
