'use strict';
// Stops the embedded PostgreSQL server global-setup.js started (none when TEST_DATABASE_URL was given).
module.exports = async function globalTeardown() {
  await globalThis.__deltabrokerPostgres?.stop();
};
