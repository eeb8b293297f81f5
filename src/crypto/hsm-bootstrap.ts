import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import type { Logger } from '../logger';
import type { Hsm } from './hsm/hsm-port';
import { openPkcs11Hsm } from './hsm/pkcs11-hsm';
import { ensureSoftHsmToken } from './hsm/softhsm-token';

/**
 * Opens the configured PKCS#11 HSM, or for the embedded default a SoftHSM2 token in the data directory (its PIN
 * generated there, mode 0600). Returns undefined when no HSM can be had: HSM methods then answer 503.
 */
export async function openConfiguredHsm(config: Config, logger: Logger): Promise<Hsm | undefined> {
  const { hsm } = config;
  if (hsm.modulePath) {
    if (!hsm.pin) {
      throw new DeltabrokerError('DB_VALIDATION', 'DELTABROKER_HSM_PIN is required with DELTABROKER_HSM_MODULE', {
        field: 'hsm.pin',
        rule: 'required',
        stage: 'config',
      });
    }
    return openPkcs11Hsm({ modulePath: hsm.modulePath, tokenLabel: hsm.tokenLabel, pin: hsm.pin, gcmParams: hsm.gcmParams });
  }
  const dir = hsm.softhsmDir ?? path.join(config.dataDir, 'softhsm');
  const pin = hsm.pin ?? readOrCreateSecret(path.join(dir, 'user.pin'));
  const token = await ensureSoftHsmToken({ dir, label: hsm.tokenLabel, pin, soPin: readOrCreateSecret(path.join(dir, 'so.pin')) });
  if (!token) {
    logger.warn('libsofthsm2 is not installed and no DELTABROKER_HSM_MODULE is set: methods hsm and hsmv1 will answer 503');
    return undefined;
  }
  logger.info({ tokenLabel: token.tokenLabel }, 'using the SoftHSM2 token in the data directory');
  return openPkcs11Hsm({ modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin, gcmParams: hsm.gcmParams });
}

function readOrCreateSecret(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(12).toString('hex'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}
