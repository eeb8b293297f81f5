#!/usr/bin/env -S node --max-old-space-size=512
'use strict';
// The operator's command: runs the compiled CLI (npm start builds it first).
// The first line's heap limit bounds the service's memory: the live heap under a 20,000-delta burst is about
// 60 MiB, but V8 sizes its old generation to a multiple of that by how much headroom the limit leaves, and with
// the default (a quarter of the machine's memory, up to 4 GiB) garbage promoted during the burst grew the process
// to 360–380 MiB before it was collected; under this limit it stays about 230 MiB. `node --max-old-space-size=N
// bin/deltabroker.js …` runs it with another. bench/run.ts gives its service-hosting children the same flags.
// Every partition log, the offset journal and the in-process readers use libuv's thread pool; with its default
// four threads, concurrent fsyncs of different partitions wait for each other. Set before anything uses it.
process.env.UV_THREADPOOL_SIZE = process.env.UV_THREADPOOL_SIZE || '16';
require('../dist/src/cli/index.js').main(process.argv.slice(2));
