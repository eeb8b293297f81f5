#!/usr/bin/env node
'use strict';
// Run before `npm start` and `npm test`: the embedded HSM needs Debian's softhsm2. When it is missing and this
// runs as root with apt-get, it installs it (DELTABROKER_AUTO_INSTALL=false turns that off); otherwise it
// prints the one command that does. It never fails the command it runs before: without SoftHSM2 the service
// starts, the hsm methods answer 503 and the HSM suites say they are skipped.
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const say = (text) => process.stderr.write(`deltabroker: ${text}\n`);

function installed() {
  return has('softhsm2-util') && existsSync(MODULE);
}

function main() {
  if (installed() || process.env.DELTABROKER_HSM_MODULE) return;
  const command = 'apt-get install -y softhsm2';
  if (process.env.DELTABROKER_AUTO_INSTALL === 'false')
    return say(`SoftHSM2 is not installed; the hsm methods will answer 503. Install it with: sudo ${command}`);
  if (process.getuid?.() !== 0 || !has('apt-get')) return say(`SoftHSM2 is not installed; the hsm methods will answer 503. Install it with: sudo ${command}`);
  say("SoftHSM2 is missing: installing Debian's softhsm2 (set DELTABROKER_AUTO_INSTALL=false to skip)");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', 'softhsm2'], { stdio: 'ignore', env });
  } catch {
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
      execFileSync('apt-get', ['install', '-y', '-qq', 'softhsm2'], { stdio: 'ignore', env });
    } catch (error) {
      return say(`installing softhsm2 failed (${error.message}); the hsm methods will answer 503. Install it with: ${command}`);
    }
  }
  say(installed() ? 'SoftHSM2 installed' : 'softhsm2 was installed but its module is not where expected');
}

main();
