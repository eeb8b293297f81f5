import { NONCE_BYTES, openAesGcm, randomKey, sealAesGcm } from '../../../src/crypto/aes-gcm';

describe('AES-GCM nonces drawn from the pooled CSPRNG output', () => {
  test('every nonce differs across several pool refills, and every sealed value opens', () => {
    const key = randomKey();
    const aad = Buffer.from('aes256skv1:default:v1|acme');
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const plaintext = Buffer.from(`payload ${i}`);
      const sealed = sealAesGcm(key, plaintext, aad);
      seen.add(sealed.subarray(0, NONCE_BYTES).toString('hex'));
      expect(openAesGcm(key, sealed, aad).equals(plaintext)).toBe(true);
    }
    expect(seen.size).toBe(2000);
  });
});
