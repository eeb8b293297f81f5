import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Hsm } from '../../../src/crypto/hsm/hsm-port';
import { openPkcs11Hsm } from '../../../src/crypto/hsm/pkcs11-hsm';
import { ensureSoftHsmToken, type SoftHsmToken } from '../../../src/crypto/hsm/softhsm-token';
import { softHsmInstalled, softHsmTestDir, softHsmTestToken } from '../../support/softhsm';

/** What the PKCS#11 adapter and the SoftHSM2 bootstrap do beyond the port's contract. */
const maybe = softHsmInstalled() ? describe : describe.skip;
if (!softHsmInstalled()) console.warn('PKCS#11 adapter tests skipped: libsofthsm2 is not installed');

maybe('PKCS#11 adapter on SoftHSM2', () => {
  let token: SoftHsmToken;
  const aad = Buffer.from('header');
  const open = (extra: Partial<Parameters<typeof openPkcs11Hsm>[0]> = {}): Promise<Hsm> =>
    openPkcs11Hsm({ modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin, ...extra });

  beforeAll(async () => {
    token = await softHsmTestToken('adapter');
  });

  it('both GCM parameter layouts round-trip and read each other', async () => {
    const v240 = await open({ gcmParams: 'v240' });
    const v3 = await open({ gcmParams: 'v3' });
    try {
      await v240.ensureKey('layouts');
      const a = await v240.encrypt('layouts', Buffer.from('from v240'), aad);
      const b = await v3.encrypt('layouts', Buffer.from('from v3'), aad);
      expect((await v3.decrypt('layouts', a, aad)).toString()).toBe('from v240');
      expect((await v240.decrypt('layouts', b, aad)).toString()).toBe('from v3');
    } finally {
      await Promise.all([v240.close(), v3.close()]);
    }
  });

  it('opens a token by slot number', async () => {
    const slots = execFileSync('softhsm2-util', ['--show-slots'], { env: process.env, encoding: 'utf8' });
    const slot = slotOf(slots, token.tokenLabel);
    const hsm = await openPkcs11Hsm({ modulePath: token.modulePath, slot, pin: token.pin });
    await expect(hsm.ping()).resolves.toBeUndefined();
    await hsm.close();
  });

  it('one session serves many concurrent calls in turn', async () => {
    const hsm = await open({ maxSessions: 1 });
    try {
      await hsm.ensureKey('single');
      const sealed = await Promise.all(Array.from({ length: 50 }, (_, i) => hsm.encrypt('single', Buffer.from(`n${i}`), aad)));
      const opened = await Promise.all(sealed.map((s) => hsm.decrypt('single', s, aad)));
      expect(opened.map(String)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i}`));
    } finally {
      await hsm.close();
    }
  });

  it('does its crypto off the event loop', async () => {
    const hsm = await open();
    try {
      await hsm.ensureKey('offloop');
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 1);
      const big = Buffer.alloc(256 * 1024, 7);
      for (let i = 0; i < 8; i++) await hsm.encrypt('offloop', big, aad);
      clearInterval(ticker);
      expect(ticks).toBeGreaterThan(0);
    } finally {
      await hsm.close();
    }
  });

  it('a module that cannot be loaded is DB_HSM_UNAVAILABLE', async () => {
    await expect(openPkcs11Hsm({ modulePath: '/nonexistent/libpkcs11.so', tokenLabel: 'x', pin: 'secret-pin-1' })).rejects.toMatchObject({
      code: 'DB_HSM_UNAVAILABLE',
      message: expect.not.stringContaining('secret-pin-1'),
    });
  });

  it('an unknown token label is DB_HSM_UNAVAILABLE', async () => {
    await expect(open({ tokenLabel: 'no-such-token' })).rejects.toMatchObject({
      code: 'DB_HSM_UNAVAILABLE',
      message: expect.stringContaining('no-such-token'),
    });
  });

  it('refuses options that name no token or two', async () => {
    await expect(openPkcs11Hsm({ modulePath: token.modulePath, pin: token.pin })).rejects.toMatchObject({ code: 'DB_VALIDATION' });
    await expect(open({ slot: 1 })).rejects.toMatchObject({ code: 'DB_VALIDATION' });
    await expect(open({ pin: '' })).rejects.toMatchObject({ code: 'DB_VALIDATION' });
  });

  describe('ensureSoftHsmToken', () => {
    it('points SOFTHSM2_CONF at a tokendir inside the directory', () => {
      const dir = softHsmTestDir();
      expect(token.confPath).toBe(path.join(dir, 'softhsm2.conf'));
      expect(process.env.SOFTHSM2_CONF).toBe(token.confPath);
      expect(readFileSync(token.confPath, 'utf8')).toContain(`directories.tokendir = ${path.join(dir, 'tokens')}`);
    });

    it('leaves an existing token alone: same PIN, keys kept', async () => {
      const hsm = await open();
      await hsm.ensureKey('kept');
      const sealed = await hsm.encrypt('kept', Buffer.from('still here'), aad);
      await hsm.close();

      const again = await ensureSoftHsmToken({ dir: softHsmTestDir(), label: token.tokenLabel, pin: token.pin, soPin: 'ignored-so-pin' });
      expect(again).toEqual(token);
      const reopened = await open();
      try {
        expect((await reopened.decrypt('kept', sealed, aad)).toString()).toBe('still here');
      } finally {
        await reopened.close();
      }
    });
  });
});

/** The slot ID printed above the token's label in `softhsm2-util --show-slots`. */
function slotOf(showSlots: string, label: string): number {
  let slot: number | undefined;
  for (const line of showSlots.split('\n')) {
    const slotLine = /^Slot (\d+)/.exec(line);
    if (slotLine) slot = Number(slotLine[1]);
    if (/^\s*Label:/.test(line) && line.split(':')[1]?.trim() === label && slot !== undefined) return slot;
  }
  throw new Error(`token ${label} not listed`);
}
