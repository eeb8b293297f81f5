#!/usr/bin/env node
'use strict';
// The operator's command: runs the compiled CLI (npm start builds it first).
require('../dist/src/cli/index.js').main(process.argv.slice(2));
