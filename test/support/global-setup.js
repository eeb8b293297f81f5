'use strict';
// Jest gives every test file its own copy of process.env, which native code (SoftHSM2's getenv) never sees.
// So the SoftHSM2 configuration is made once here, in the real process environment, before any test runs:
// every suite creates its own token (unique label) under this one directory.
const { mkdirSync, mkdtempSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function globalSetup() {
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
};
