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
import type { Figure } from './support/figures';

const plaintext = randomBytes(1024);
const aad = Buffer.from('hsmv1:bench:v1');

async function rate(run: () => Promise<unknown>, parallel: number, seconds: number): Promise<number> {
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

export interface HsmCoreOptions {
  readonly seconds: number;
  readonly concurrency: number;
}

interface HsmCoreResult {
  node: number;
  hsmOne: number;
  hsmMany: number;
}

/** Undefined when libsofthsm2 is not installed. */
async function measure({ seconds, concurrency }: HsmCoreOptions): Promise<HsmCoreResult | undefined> {
  const dir = mkdtempSync(path.join(tmpdir(), 'deltabroker-bench-hsm-'));
  try {
    const token = await ensureSoftHsmToken({ dir, label: 'bench', pin: randomBytes(8).toString('hex'), soPin: randomBytes(8).toString('hex') });
    if (!token) return undefined;
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

      await rate(viaHsm, concurrency, seconds); // warm-up: sessions opened, key handle cached
      const node = await rate(software, 1, seconds);
      const hsmOne = await rate(viaHsm, 1, seconds);
      const hsmMany = await rate(viaHsm, concurrency, seconds);
      return { node, hsmOne, hsmMany };
    } finally {
      await hsm.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures for the one table of bench/run.ts (none without SoftHSM2). */
export async function run(o: HsmCoreOptions): Promise<Figure[]> {
  const r = await measure(o);
  if (!r) return [];
  const node = { name: 'node:crypto AES-256-GCM, 1 KiB', value: r.node, unit: 'ops/s' };
  return [
    { name: 'SoftHSM2 via PKCS#11 adapter, 1 in flight', value: r.hsmOne, unit: 'ops/s', baseline: node },
    { name: `SoftHSM2 via PKCS#11 adapter, ${o.concurrency} in flight`, value: r.hsmMany, unit: 'ops/s', baseline: node },
  ];
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 3);
  const concurrency = Number(process.argv[3] ?? 8);
  const r = await measure({ seconds, concurrency });
  if (!r) {
    console.log('hsm-core: skipped, libsofthsm2 is not installed');
    return;
  }
  const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')}/s`;
  console.log(`hsm-core: 1 KiB AES-256-GCM encryptions, ${seconds}s per case`);
  console.log(`  node:crypto (baseline)              ${fmt(r.node)}`);
  console.log(`  SoftHSM2 via adapter, 1 in flight   ${fmt(r.hsmOne)}   ratio ${(r.hsmOne / r.node).toFixed(3)}`);
  console.log(`  SoftHSM2 via adapter, ${concurrency} in flight   ${fmt(r.hsmMany)}   ratio ${(r.hsmMany / r.node).toFixed(3)}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
