import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import type { ErrorCode } from '../../src/errors';
import type { Hsm, HsmCiphertext } from '../../src/crypto/hsm/hsm-port';

/**
 * The contract every HSM adapter passes. Run it against a module with `runHsmContract(target)`; the target
 * opens adapters on one token (each `open()` a fresh adapter, so keys must outlive close/reopen).
 */
export interface HsmContractTarget {
  name: string;
  open: () => Promise<Hsm>;
  /** Opens the same token with this PIN instead of the right one. */
  openWithPin: (pin: string) => Promise<Hsm>;
}

/** Either a target, or the reason the module is not here (printed, and the suite is skipped). */
export type HsmContractSubject = HsmContractTarget | { skip: string };

export function runHsmContract(subject: HsmContractSubject): void {
  if ('skip' in subject) {
    describe('HSM contract', () => {
      console.warn(`HSM contract skipped: ${subject.skip}`); // at collection: hooks of an all-skipped block never run
      it.skip(`skipped: ${subject.skip}`, () => undefined);
    });
    return;
  }
  const target = subject;

  describe(`HSM contract: ${target.name}`, () => {
    describe('login', () => {
      it('a wrong PIN is DB_HSM_UNAVAILABLE and the PIN appears nowhere in the error', async () => {
        const wrongPin = `wrong-${randomBytes(6).toString('hex')}`;
        const error = await expectCode(target.openWithPin(wrongPin), 'DB_HSM_UNAVAILABLE');
        expect(inspect(error, { depth: 10 })).not.toContain(wrongPin);
        expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(wrongPin);
      });

      it('a wrong PIN is refused also while another adapter is logged in to the token', async () => {
        const open = await target.open();
        try {
          await open.ping();
          const wrongPin = `wrong-${randomBytes(6).toString('hex')}`;
          const error = await expectCode(target.openWithPin(wrongPin), 'DB_HSM_UNAVAILABLE');
          expect(inspect(error, { depth: 10 })).not.toContain(wrongPin);
          await expect(open.ping()).resolves.toBeUndefined();
        } finally {
          await open.close();
        }
      });
    });

    describe('with an open adapter', () => {
      let hsm: Hsm;
      const run = randomBytes(4).toString('hex');
      const label = (name: string) => `contract.${run}.${name}`;
      const aad = Buffer.from('hsmv1:tenant/alias:v1');

      beforeAll(async () => {
        hsm = await target.open();
        await hsm.ensureKey(label('main'));
      });
      afterAll(async () => {
        await hsm?.close();
      });

      describe('encryption', () => {
        it.each([0, 1, 15, 16, 17, 1024, 65_536])('round-trips %i bytes with a 96-bit IV and a 128-bit tag', async (size) => {
          const plaintext = randomBytes(size);
          const sealed = await hsm.encrypt(label('main'), plaintext, aad);
          expect(sealed.iv).toHaveLength(12);
          expect(sealed.ciphertext).toHaveLength(size + 16);
          if (size >= 16) expect(sealed.ciphertext.subarray(0, size).equals(plaintext)).toBe(false);
          expect(await hsm.decrypt(label('main'), sealed, aad)).toEqual(plaintext);
        });

        it('round-trips with empty AAD', async () => {
          const sealed = await hsm.encrypt(label('main'), Buffer.from('no header'), Buffer.alloc(0));
          expect((await hsm.decrypt(label('main'), sealed, Buffer.alloc(0))).toString()).toBe('no header');
        });

        it('draws a fresh IV each time', async () => {
          const plaintext = Buffer.from('same message');
          const a = await hsm.encrypt(label('main'), plaintext, aad);
          const b = await hsm.encrypt(label('main'), plaintext, aad);
          expect(a.iv.equals(b.iv)).toBe(false);
          expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
        });
      });

      describe('authentication', () => {
        let sealed: HsmCiphertext;
        const plaintext = Buffer.from('{"card":"4111111111111111"}');
        beforeAll(async () => {
          sealed = await hsm.encrypt(label('main'), plaintext, aad);
        });

        it('binds the AAD: another header, or none, fails', async () => {
          await expectCode(hsm.decrypt(label('main'), sealed, Buffer.from('hsmv1:tenant/alias:v2')), 'DB_DECRYPT_FAILED');
          await expectCode(hsm.decrypt(label('main'), sealed, Buffer.alloc(0)), 'DB_DECRYPT_FAILED');
        });

        it.each([
          ['a ciphertext bit', (s: HsmCiphertext) => ({ iv: s.iv, ciphertext: flip(s.ciphertext, 0) })],
          ['a tag bit', (s: HsmCiphertext) => ({ iv: s.iv, ciphertext: flip(s.ciphertext, s.ciphertext.length - 1) })],
          ['an IV bit', (s: HsmCiphertext) => ({ iv: flip(s.iv, 5), ciphertext: s.ciphertext })],
          ['a truncated tag', (s: HsmCiphertext) => ({ iv: s.iv, ciphertext: s.ciphertext.subarray(0, s.ciphertext.length - 1) })],
          ['a short IV', (s: HsmCiphertext) => ({ iv: s.iv.subarray(0, 8), ciphertext: s.ciphertext })],
          ['less than a tag', (s: HsmCiphertext) => ({ iv: s.iv, ciphertext: s.ciphertext.subarray(0, 10) })],
        ])('refuses %s changed', async (_what, tamper) => {
          await expectCode(hsm.decrypt(label('main'), tamper(sealed), aad), 'DB_DECRYPT_FAILED');
        });

        it('refuses another key', async () => {
          await hsm.ensureKey(label('other'));
          await expectCode(hsm.decrypt(label('other'), sealed, aad), 'DB_DECRYPT_FAILED');
        });

        it('keeps working after failed decryptions', async () => {
          await expectCode(hsm.decrypt(label('main'), { iv: sealed.iv, ciphertext: flip(sealed.ciphertext, 3) }, aad), 'DB_DECRYPT_FAILED');
          expect(await hsm.decrypt(label('main'), sealed, aad)).toEqual(plaintext);
        });
      });

      describe('keys', () => {
        it('creates AES-256 keys that are sensitive and never extractable', async () => {
          const info = await hsm.describeKey(label('main'));
          expect(info).toMatchObject({ label: label('main'), bits: 256, sensitive: true, extractable: false });
          if (info?.alwaysSensitive !== undefined) expect(info.alwaysSensitive).toBe(true);
          if (info?.neverExtractable !== undefined) expect(info.neverExtractable).toBe(true);
        });

        it('ensureKey is idempotent, also when called concurrently', async () => {
          const sealed = await hsm.encrypt(label('main'), Buffer.from('before'), aad);
          await hsm.ensureKey(label('main'));
          expect((await hsm.decrypt(label('main'), sealed, aad)).toString()).toBe('before');

          await Promise.all(Array.from({ length: 8 }, () => hsm.ensureKey(label('raced'))));
          const raced = await hsm.encrypt(label('raced'), Buffer.from('one key'), aad);
          const second = await target.open();
          try {
            expect((await second.decrypt(label('raced'), raced, aad)).toString()).toBe('one key');
          } finally {
            await second.close();
          }
        });

        it('says clearly when a label is unknown', async () => {
          const missing = label('missing');
          expect(await hsm.hasKey(missing)).toBe(false);
          expect(await hsm.describeKey(missing)).toBeNull();
          const sealed = await hsm.encrypt(label('main'), Buffer.from('x'), aad);
          const error = await expectCode(hsm.decrypt(missing, sealed, aad), 'DB_UNKNOWN_KEY');
          expect(error.message).toContain(missing);
          await expectCode(hsm.encrypt(missing, Buffer.from('x'), aad), 'DB_UNKNOWN_KEY');
        });

        it('keeps keys across close and reopen', async () => {
          const durable = label('durable');
          const first = await target.open();
          await first.ensureKey(durable);
          const sealed = await first.encrypt(durable, Buffer.from('survives'), aad);
          await first.close();

          const reopened = await target.open();
          try {
            expect(await reopened.hasKey(durable)).toBe(true);
            expect((await reopened.decrypt(durable, sealed, aad)).toString()).toBe('survives');
          } finally {
            await reopened.close();
          }
        });
      });

      describe('concurrency', () => {
        it('200 parallel encryptions all round-trip', async () => {
          const plaintexts = Array.from({ length: 200 }, (_, i) => Buffer.from(`message ${i} ${'x'.repeat(i)}`));
          const sealed = await Promise.all(plaintexts.map((p) => hsm.encrypt(label('main'), p, aad)));
          expect(new Set(sealed.map((s) => s.iv.toString('hex'))).size).toBe(200);
          const opened = await Promise.all(sealed.map((s) => hsm.decrypt(label('main'), s, aad)));
          opened.forEach((p, i) => expect(p).toEqual(plaintexts[i]));
        });

        it('interleaved failures do not disturb other calls', async () => {
          const good = await hsm.encrypt(label('main'), Buffer.from('good'), aad);
          const bad = { iv: good.iv, ciphertext: flip(good.ciphertext, 0) };
          const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => hsm.decrypt(label('main'), i % 3 === 0 ? bad : good, aad)));
          results.forEach((r, i) => {
            if (i % 3 === 0) expect(r).toMatchObject({ status: 'rejected', reason: { code: 'DB_DECRYPT_FAILED' } });
            else expect(r).toMatchObject({ status: 'fulfilled', value: Buffer.from('good') });
          });
        });
      });

      describe('availability', () => {
        it('ping answers while open', async () => {
          await expect(hsm.ping()).resolves.toBeUndefined();
        });

        it('close lets calls already made finish, then refuses', async () => {
          const own = await target.open();
          const inFlight = Array.from({ length: 20 }, (_, i) => own.encrypt(label('main'), Buffer.from(`late ${i}`), aad));
          const closed = own.close();
          const sealed = await Promise.all(inFlight);
          await closed;
          expect(sealed).toHaveLength(20);
          await expectCode(own.ping(), 'DB_HSM_UNAVAILABLE');
          await expectCode(own.encrypt(label('main'), Buffer.from('x'), aad), 'DB_HSM_UNAVAILABLE');
          // the shared module is still usable by the adapter that stayed open
          expect((await hsm.decrypt(label('main'), sealed[0] as HsmCiphertext, aad)).toString()).toBe('late 0');
        });
      });
    });
  });
}

type CodedError = Error & { code: ErrorCode; details: Record<string, unknown> };

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<CodedError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(Error);
  expect(caught).toMatchObject({ code });
  return caught as CodedError;
}

function flip(data: Buffer, index: number): Buffer {
  const copy = Buffer.from(data);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}
