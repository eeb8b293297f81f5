import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../../src/system/free-port';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const listen = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

test('a free port lies below the ephemeral range, so no outgoing connection takes it as its source port', async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(ephemeralStart);
  }
  expect(new Set(ports).size).toBe(ports.length);
  const server = await listen(ports[0]!);
  await new Promise((resolve) => server.close(resolve));
});

test('a port this process handed out is not handed out again, even once it is free', async () => {
  const seen = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const port = await freePort();
    expect(seen.has(port)).toBe(false);
    seen.add(port);
  }
});
