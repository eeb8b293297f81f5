/**
 * 1 KiB AES-256-GCM encryptions per second: through the PKCS#11 adapter on a SoftHSM2 token, against
 * node:crypto in the same run. Prints both rates and their ratio (ratios travel between machines, rates don't).
 *
 *   npx tsx bench/hsm-core.ts [seconds-per-case=3] [concurrency=8]
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPkcs11Hsm } from '../src/crypto/hsm/pkcs11-hsm';
import { ensureSoftHsmToken } from '../src/crypto/hsm/softhsm-token';

const seconds = Number(process.argv[2] ?? 3);
const concurrency = Number(process.argv[3] ?? 8);
const plaintext = randomBytes(1024);
const aad = Buffer.from('hsmv1:bench:v1');

async function rate(run: () => Promise<unknown>, parallel: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (Date.now() < until) {
      await run();
      done++;
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: parallel }, worker));
  return done / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'deltabroker-bench-hsm-'));
  try {
    const token = await ensureSoftHsmToken({ dir, label: 'bench', pin: randomBytes(8).toString('hex'), soPin: randomBytes(8).toString('hex') });
    if (!token) {
      console.log('hsm-core: skipped, libsofthsm2 is not installed');
      return;
    }
    const hsm = await openPkcs11Hsm({ modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin });
    try {
      await hsm.ensureKey('bench');
      const key = randomBytes(32);
      const software = async () => {
        const cipher = createCipheriv('aes-256-gcm', key, randomBytes(12), { authTagLength: 16 });
        cipher.setAAD(aad);
        return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      };
      const viaHsm = () => hsm.encrypt('bench', plaintext, aad);

      await rate(viaHsm, concurrency); // warm-up: sessions opened, key handle cached
      const node = await rate(software, 1);
      const hsmOne = await rate(viaHsm, 1);
      const hsmMany = await rate(viaHsm, concurrency);
      const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')}/s`;
      console.log(`hsm-core: 1 KiB AES-256-GCM encryptions, ${seconds}s per case`);
      console.log(`  node:crypto (baseline)              ${fmt(node)}`);
      console.log(`  SoftHSM2 via adapter, 1 in flight   ${fmt(hsmOne)}   ratio ${(hsmOne / node).toFixed(3)}`);
      console.log(`  SoftHSM2 via adapter, ${concurrency} in flight   ${fmt(hsmMany)}   ratio ${(hsmMany / node).toFixed(3)}`);
    } finally {
      await hsm.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
