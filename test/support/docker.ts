import { spawnSync } from 'node:child_process';

export type DockerAvailability = { ok: true } | { ok: false; why: string };

/**
 * Whether a Docker engine answers `GET /_ping`. Jest collects suites synchronously, so this is decided in a child
 * process with a hard 3 s limit: a machine without Docker skips the container suites at once.
 */
export function dockerAnswers(): DockerAvailability {
  const probe = `
    const http = require('node:http');
    const host = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
    const target = host.startsWith('unix://')
      ? { socketPath: host.slice(7), path: '/_ping' }
      : (() => { const u = new URL(host.replace(/^tcp:/, 'http:')); return { host: u.hostname, port: u.port || 2375, path: '/_ping' }; })();
    const req = http.get({ ...target, timeout: 2000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 2));
    req.on('timeout', () => { console.error('no answer from ' + host); process.exit(3); });
    req.on('error', (e) => { console.error(e.code + ' at ' + host); process.exit(4); });
  `;
  const result = spawnSync(process.execPath, ['-e', probe], { timeout: 3000, encoding: 'utf8' });
  if (result.status === 0) return { ok: true };
  const why = result.error ? result.error.message : (result.stderr || `probe exited ${result.status}`).trim();
  return { ok: false, why: `no Docker engine answers (${why})` };
}
