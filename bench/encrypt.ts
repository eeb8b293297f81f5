import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDevIssuer } from '../src/auth/dev-issuer';
import { loadConfig } from '../src/config';
import { silentLogger } from '../src/logger';
import { startService } from '../src/main';
import { runHttpLoad } from './http-load';

/**
 * Encryption dispatch throughput: 1 KiB payloads through HTTP for aes and hsm, against a no-op authenticated
 * route in the same run (the HTTP ceiling), and the AES core against raw node:crypto AES-256-GCM.
 * Usage: npx tsx bench/encrypt.ts [seconds per case, default 5] [concurrency, default 16]
 */
async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5);
  const concurrency = Number(process.argv[3] ?? 16);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-'));
  const config = loadConfig({ ...process.env, DELTABROKER_DATA_DIR: dataDir, DELTABROKER_HTTP_PORT: '0' });
  const service = await startService(config, silentLogger());
  try {
    const issuer = await loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience);
    const token = await issuer.mint({ sub: 'bench', tenant: 'acme', roles: ['admin'] });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const payload = randomBytes(768).toString('base64'); // 1 KiB of text
    const body = (method: string): string => JSON.stringify({ dispatch: { operation: 'encrypt', method }, payload });

    const load = (method: 'GET' | 'POST', url: string, requestBody?: string) =>
      runHttpLoad({ url: `${service.url}${url}`, method, headers, seconds, concurrency, ...(requestBody && { body: requestBody }) });
    const noop = await load('GET', '/whoami');
    const aes = await load('POST', '/dispatch', body('aes'));
    const hsm = service.hsm ? await load('POST', '/dispatch', body('hsm')) : undefined;

    const core = await coreVsNodeCrypto(service.crypto, payload, seconds);

    const row = (name: string, r: typeof noop) =>
      `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms  errors ${r.errors}  ratio to no-op ${(r.perSecond / noop.perSecond).toFixed(2)}`;
    console.log(`encryption dispatch, 1 KiB payloads, ${concurrency} keep-alive clients, ${seconds}s per case, store ${service.sql.kind}`);
    console.log(row('GET /whoami (no-op, authenticated)', noop));
    console.log(row('POST /dispatch aes', aes));
    if (hsm) console.log(row('POST /dispatch hsm (SoftHSM2)', hsm));
    else console.log('POST /dispatch hsm: skipped, no HSM (install softhsm2)');
    console.log(
      `AES core (EncryptionService.encrypt)  ${core.service.toFixed(0)} ops/s vs raw node:crypto AES-256-GCM ${core.raw.toFixed(0)} ops/s: ratio ${(core.service / core.raw).toFixed(2)}`,
    );
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function coreVsNodeCrypto(crypto: import('../src/crypto/encryption-service').EncryptionService, payload: string, seconds: number) {
  const caller = { tenant: 'acme', user: 'bench' };
  const key = randomBytes(32);
  const plaintext = Buffer.from(payload);
  const until = (ms: number) => performance.now() + ms;

  let raw = 0;
  const rawEnd = until(seconds * 500);
  while (performance.now() < rawEnd) {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from('aes256skv1:default:v1|acme'));
    Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]).toString('base64url');
    raw += 1;
  }
  const rawRate = raw / (seconds * 0.5);

  let done = 0;
  const serviceEnd = until(seconds * 500);
  while (performance.now() < serviceEnd) {
    await crypto.encrypt(caller, { method: 'aes', encoding: 'utf8', payload });
    done += 1;
  }
  return { raw: rawRate, service: done / (seconds * 0.5) };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
