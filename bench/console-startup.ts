/**
 * What serving the console adds to the service's start-up, from the compiled service (`npm run build` first):
 *  - loading its modules: the console's routes (static files, its JSON routes, the topic routes) and the services
 *    only they use, in a fresh node process that has already loaded what the rest of the service shares with
 *    them (fastify, the error catalogue, the log and tenant modules); median of 15 processes;
 *  - registering those routes on the service's fastify app and making it ready (route tree, hooks): a fresh app
 *    with and without them, median of 30 each, the difference.
 * The console's files are read on first request, not at start-up, so they are not in either.
 * Usage: npm run build && npx tsx bench/console-startup.ts
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as App from '../src/http/app';
import type * as ConsoleRoutes from '../src/http/routes/console';
import type * as ConsoleDataRoutes from '../src/http/routes/console-data';
import type * as HealthRoutes from '../src/http/routes/health';
import type * as TopicRoutes from '../src/http/routes/topics';
import type * as Logger from '../src/logger';
import { quantile } from './support/figures';

const DIST = path.resolve(__dirname, '..', 'dist', 'src');
const SHARED = ['http/app', 'errors', 'auth/operator', 'auth/roles', 'log/index', 'observability/index', 'tenant/index', 'logger'];
const CONSOLE_ONLY = [
  'http/routes/console',
  'http/routes/console-data',
  'http/routes/topics',
  'broker/tenant-overview',
  'broker/record-history',
  'broker/log-topics',
  'broker/topic-messages',
  'log/registry-schemas',
];

const median = (values: number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

function moduleLoadMs(): number {
  const script = `
    const { performance } = require('node:perf_hooks');
    for (const m of ${JSON.stringify(SHARED)}) require(${JSON.stringify(DIST)} + '/' + m + '.js');
    const started = performance.now();
    for (const m of ${JSON.stringify(CONSOLE_ONLY)}) require(${JSON.stringify(DIST)} + '/' + m + '.js');
    process.stdout.write(String(performance.now() - started));
  `;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

/* eslint-disable @typescript-eslint/no-require-imports -- the compiled modules, as the service loads them */
async function readyMs(withConsole: boolean): Promise<number> {
  const { buildHttpApp } = require(`${DIST}/http/app.js`) as typeof App;
  const { silentLogger } = require(`${DIST}/logger.js`) as typeof Logger;
  const { registerHealthRoutes } = require(`${DIST}/http/routes/health.js`) as typeof HealthRoutes;
  const { registerConsoleRoutes, consoleAssetsDir } = require(`${DIST}/http/routes/console.js`) as typeof ConsoleRoutes;
  const { registerConsoleDataRoutes } = require(`${DIST}/http/routes/console-data.js`) as typeof ConsoleDataRoutes;
  const { registerTopicRoutes } = require(`${DIST}/http/routes/topics.js`) as typeof TopicRoutes;
  const verifier = { verify: async () => ({ user: 'u', tenant: 't', roles: [] }) };
  const app = buildHttpApp({ logger: silentLogger(), verifier, bodyLimitBytes: 1024 });
  const started = performance.now();
  registerHealthRoutes(app, []);
  if (withConsole) {
    const unused = {} as never;
    registerConsoleDataRoutes(app, unused, unused);
    registerTopicRoutes(app, unused, unused);
    registerConsoleRoutes(app, { assetsDir: consoleAssetsDir(DIST), mintDevToken: async () => 'token' });
  }
  await app.ready();
  const ms = performance.now() - started;
  await app.close();
  return ms;
}
/* eslint-enable @typescript-eslint/no-require-imports */

async function main(): Promise<void> {
  const loads = Array.from({ length: 15 }, moduleLoadMs);
  // Warm-up: the first apps pay for fastify's own lazy work, whichever comes first.
  for (let i = 0; i < 5; i++) await readyMs(i % 2 === 0);
  const without: number[] = [];
  const withConsole: number[] = [];
  for (let i = 0; i < 30; i++) {
    without.push(await readyMs(false));
    withConsole.push(await readyMs(true));
  }
  const load = median(loads);
  const registration = median(withConsole) - median(without);
  console.log(
    JSON.stringify({
      moduleLoadMs: +load.toFixed(2),
      registrationAndReadyMs: +registration.toFixed(2),
      totalMs: +(load + registration).toFixed(2),
      samples: { loads: loads.length, apps: without.length },
    }),
  );
}

void main();
