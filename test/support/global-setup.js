'use strict';
// Jest gives every test file its own copy of process.env, which native code (SoftHSM2's getenv) never sees.
// So the SoftHSM2 configuration is made once here, in the real process environment, before any test runs:
// the service suites share one token made here (SoftHSM2 lists tokens only at C_Initialize, once per process),
// and suites that test token creation itself make theirs under the same directory.
// PostgreSQL: TEST_DATABASE_URL (an admin URL) when given, else an embedded server started here for the run and
// stopped by global-teardown.js; every suite makes its own fresh database on it.
// Real engines (Kafka 4, the schema registry): started here too, beside PostgreSQL, see engines.ts.
const { execFileSync } = require('node:child_process');
const { mkdirSync, mkdtempSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

async function startPostgres() {
  if (process.env.TEST_DATABASE_URL) return;
  require('tsx/cjs/api').register();
  const { startScratchPostgres } = require('./postgres-server.ts');
  const started = Date.now();
  const server = await startScratchPostgres();
  globalThis.__deltabrokerPostgres = server;
  process.env.TEST_DATABASE_URL = server.adminUrl;
  process.stdout.write(`\nembedded PostgreSQL for this run started in ${Date.now() - started} ms\n`);
}

/** Kafka 4, the schema registry, OpenSearch and Elasticsearch as JVM processes, once per run (test/support/engines.ts). */
async function startEngines(globalConfig) {
  // `npm run test:unit` needs no engine.
  const projects = globalConfig.selectProjects;
  if (projects && projects.every((name) => name === 'unit')) process.env.DELTABROKER_TEST_ENGINES ??= 'off';
  require('tsx/cjs/api').register();
  const { startTestEngines } = require('./engines.ts');
  const started = Date.now();
  const state = await startTestEngines();
  const running = [
    state.kafka && `Kafka ${state.kafka.nodes.length} nodes`,
    state.registry && 'schema registry',
    state.opensearch && 'OpenSearch',
    state.elasticsearch && 'Elasticsearch',
  ].filter(Boolean);
  const skipped = Object.entries(state.unavailable).map(([name, why]) => `${name} (${why})`);
  process.stdout.write(
    `real engines: ${running.join(', ') || 'none'} in ${Date.now() - started} ms${skipped.length ? `; not running: ${skipped.join('; ')}` : ''}\n`,
  );
}

module.exports = async function globalSetup(globalConfig) {
  await Promise.all([startPostgres(), startEngines(globalConfig)]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-softhsm-'));
  const tokenDir = path.join(dir, 'tokens');
  mkdirSync(tokenDir, { recursive: true, mode: 0o700 });
  const conf = path.join(dir, 'softhsm2.conf');
  // Same content as src/crypto/hsm/softhsm-token.ts writes, so it is left as is when a suite bootstraps a token here.
  writeFileSync(
    conf,
    [
      '# Written by deltabroker: SoftHSM2 tokens of this data directory.',
      `directories.tokendir = ${tokenDir}`,
      'objectstore.backend = file',
      'log.level = ERROR',
      'slots.removable = false',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  process.env.SOFTHSM2_CONF = conf;
  process.env.TEST_SOFTHSM_DIR = dir;
  process.env.TEST_HSM_TOKEN_LABEL = 'deltabroker-test';
  process.env.TEST_HSM_PIN = '4321-test';
  try {
    execFileSync('softhsm2-util', ['--init-token', '--free', '--label', 'deltabroker-test', '--pin', '4321-test', '--so-pin', '87654321'], {
      env: process.env,
      stdio: 'ignore',
    });
  } catch (error) {
    // Without SoftHSM2 the service starts with no HSM and the HSM suites say they are skipped.
    if (error.code !== 'ENOENT') throw error;
  }
};
