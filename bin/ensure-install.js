#!/usr/bin/env node
'use strict';
// Run before `npm start` and `npm test`: installs the locked dependencies with `npm ci` when node_modules is
// missing or older than package-lock.json, and does nothing otherwise. `npm ci` never writes the lock, so a
// checkout stays clean (the `npm install` these scripts ran before rewrote it). To change dependencies, run
// `npm install` yourself and commit the lock it writes.
const { spawnSync } = require('node:child_process');
const { statSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const modified = (file) => statSync(path.join(root, file), { throwIfNoEntry: false })?.mtimeMs;

// npm writes node_modules/.package-lock.json last in every install, after the lock: its age is the install's.
const installed = modified('node_modules/.package-lock.json');
if (installed !== undefined && installed >= modified('package-lock.json')) process.exit(0);

process.stderr.write('deltabroker: node_modules is missing or older than package-lock.json: running npm ci\n');
const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
