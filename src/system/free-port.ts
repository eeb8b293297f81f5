import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Below the ports of well-known services, so a port chosen here does not stop one from starting. */
const LOWEST = 20_000;
/** Where the kernel's ephemeral ports begin when it does not say (IANA's dynamic range). */
const DEFAULT_EPHEMERAL_START = 49_152;
/** Ports this process handed out, not handed out again even once they are free: their owner may be restarting. */
const handedOut = new Set<number>();

/**
 * A free TCP port on loopback, for a server that must listen on a port known before it starts (a process
 * restarted on the same address, PostgreSQL). It lies below the kernel's ephemeral range: a port taken by
 * listening on port 0 comes from that range, which the kernel also draws outgoing connections' source ports
 * from, so one client's connection could take it while its server was down between two starts. Another process
 * can still take it between this check and the server's listen; only an unlikely pick of the same number.
 */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (handedOut.has(port) || !(await listensOn(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free TCP port found on 127.0.0.1 between ${LOWEST} and ${end - 1}`);
}

function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > LOWEST + 1000 ? start : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}

/** Whether a server can listen on `port` now (it is closed again before this answers). */
function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
