'use strict';
// Stops the embedded PostgreSQL server global-setup.js started (none when TEST_DATABASE_URL was given) and the
// real engines it started.
module.exports = async function globalTeardown() {
  require('tsx/cjs/api').register();
  await Promise.all([globalThis.__deltabrokerPostgres?.stop(), require('./engines.ts').stopTestEngines()]);
};
