import { openPkcs11Hsm } from '../../../src/crypto/hsm/pkcs11-hsm';
import type { SoftHsmToken } from '../../../src/crypto/hsm/softhsm-token';
import { runHsmContract } from '../../support/hsm-contract';
import { softHsmInstalled, softHsmTestToken } from '../../support/softhsm';

/** The HSM contract against a SoftHSM2 token made in a temporary directory. */
let token: Promise<SoftHsmToken> | undefined;
const tokenReady = (): Promise<SoftHsmToken> => (token ??= softHsmTestToken('contract'));

runHsmContract(
  softHsmInstalled()
    ? {
        name: 'SoftHSM2',
        open: async () => {
          const t = await tokenReady();
          return openPkcs11Hsm({ modulePath: t.modulePath, tokenLabel: t.tokenLabel, pin: t.pin, gcmParams: 'v240' });
        },
        openWithPin: async (wrongPin) => {
          const t = await tokenReady();
          return openPkcs11Hsm({ modulePath: t.modulePath, tokenLabel: t.tokenLabel, pin: wrongPin });
        },
      }
    : { skip: 'libsofthsm2 is not installed (apt-get install softhsm2)' },
);
