import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureSoftHsmToken, findSoftHsmModule, type SoftHsmToken } from '../../src/crypto/hsm/softhsm-token';

/**
 * SoftHSM2 tokens for tests, all in one directory per test process.
 *
 * Why one directory: libsofthsm2 reads SOFTHSM2_CONF with getenv() at C_Initialize, but under Jest
 * `process.env` is a copy private to the test file, so setting it there (as ensureSoftHsmToken does) never
 * reaches the C library. test/support/global-setup.js makes the directory in the real environment
 * (TEST_SOFTHSM_DIR); without it (a file run on its own config), process.loadEnvFile writes the real
 * environment once (it never overrides), and later files of the process find it in their copy.
 */
const ENV = 'SOFTHSM2_CONF';
const MARK = 'deltabroker-softhsm-test-';

export const softHsmInstalled = (): string | undefined => findSoftHsmModule();

export function softHsmTestDir(): string {
  const shared = process.env.TEST_SOFTHSM_DIR;
  if (shared) return shared;
  const current = process.env[ENV];
  if (current && path.basename(path.dirname(current)).startsWith(MARK)) return path.dirname(current);
  if (current) throw new Error(`${ENV} is set to ${current}: unset it to run the SoftHSM2 tests in their own directory`);
  const dir = mkdtempSync(path.join(tmpdir(), MARK));
  const conf = path.join(dir, 'softhsm2.conf');
  const envFile = path.join(dir, 'env');
  writeFileSync(envFile, `${ENV}=${conf}\n`);
  process.loadEnvFile(envFile); // the real environment, seen by libsofthsm2
  rmSync(envFile);
  process.env[ENV] = conf; // this file's copy
  return dir;
}

/** A fresh token with a random PIN, labelled `<prefix>-<random>` (at most 32 bytes). */
export async function softHsmTestToken(prefix: string): Promise<SoftHsmToken> {
  const token = await ensureSoftHsmToken({
    dir: softHsmTestDir(),
    label: `${prefix.slice(0, 23)}-${randomBytes(4).toString('hex')}`,
    pin: randomBytes(8).toString('hex'),
    soPin: randomBytes(8).toString('hex'),
  });
  if (!token) throw new Error('softhsm2-util is missing although libsofthsm2 is installed');
  return token;
}
