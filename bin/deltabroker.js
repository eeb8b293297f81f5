#!/usr/bin/env node
'use strict';
// The operator's command: runs the compiled CLI (npm start builds it first).
// Every partition log, the offset journal and the in-process readers use libuv's thread pool; with its default
// four threads, concurrent fsyncs of different partitions wait for each other. Set before anything uses it.
process.env.UV_THREADPOOL_SIZE = process.env.UV_THREADPOOL_SIZE || '16';
require('../dist/src/cli/index.js').main(process.argv.slice(2));
