// Opens COUNT idle TCP connections to HOST:PORT, spread over the given local source addresses, and keeps them
// open without sending a byte. Prints one JSON line once every attempt settled and a second has passed (how
// many connected, how many the server has closed since, how many failed), then holds them until stdin closes.
// usage: node idle-connections.js HOST PORT COUNT SOURCE[,SOURCE…]
'use strict';
const net = require('node:net');

const [host, port, count, sources] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5].split(',')];
const sockets = [];
let connected = 0;
let closedByServer = 0;
let failed = 0;
let settled = 0;

function open(i) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, localAddress: sources[i % sources.length] });
    socket.once('connect', () => {
      connected++;
      resolve();
    });
    socket.once('error', (err) => {
      if (!socket.connecting) return;
      failed++;
      if (failed === 1) process.stderr.write(`first failure: ${err.code}\n`);
      resolve();
    });
    socket.on('close', () => {
      if (!socket.connecting && socket.bytesRead === 0) closedByServer++;
    });
    socket.on('error', () => undefined);
    sockets.push(socket);
  }).finally(() => settled++);
}

(async () => {
  for (let i = 0; i < count; i += 200) await Promise.all(Array.from({ length: Math.min(200, count - i) }, (_, j) => open(i + j)));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  process.stdout.write(`${JSON.stringify({ attempted: count, connected, closedByServer, open: connected - closedByServer, failed })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
})();
