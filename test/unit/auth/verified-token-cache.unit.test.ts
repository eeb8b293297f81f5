import { DeltabrokerError } from '../../../src/errors';
import type { Principal, TokenVerifier } from '../../../src/auth/principal';
import { cacheVerifiedTokens } from '../../../src/auth/verified-token-cache';

const tokenWith = (exp: number, n = 0): string => `h.${Buffer.from(JSON.stringify({ sub: `u${n}`, exp })).toString('base64url')}.s`;

function counting(): TokenVerifier & { calls: number } {
  const verifier = {
    calls: 0,
    async verify(token: string): Promise<Principal> {
      verifier.calls++;
      if (token.startsWith('bad')) throw new DeltabrokerError('DB_UNAUTHENTICATED', 'bad token');
      return { user: token, tenant: 'acme', roles: ['admin'] };
    },
  };
  return verifier;
}

describe('verified-token cache', () => {
  test('a token judged at another moment (a delta at its record time) is answered inside its nbf..exp only', async () => {
    const inner = counting();
    const cache = cacheVerifiedTokens(inner, { now: () => 1_000_000 });
    const token = tokenWith(2000);
    await cache.verify(token);
    await cache.verify(token, new Date(1_500_000));
    expect(inner.calls).toBe(1);
    await cache.verify(token, new Date(2_000_000));
    expect(inner.calls).toBe(2);
  });

  let clock = 1_000_000;
  const now = () => clock;

  test('a verified token is answered from the cache until its exp, then verified again', async () => {
    const inner = counting();
    const cache = cacheVerifiedTokens(inner, { now });
    const token = tokenWith((clock + 60_000) / 1000);
    await cache.verify(token);
    await cache.verify(token);
    expect(inner.calls).toBe(1);
    clock += 60_000;
    await cache.verify(token);
    expect(inner.calls).toBe(2);
  });

  test('never longer than maxAgeMs, refusals are never remembered, and the size is bounded', async () => {
    const inner = counting();
    const cache = cacheVerifiedTokens(inner, { now, maxAgeMs: 1000, maxEntries: 2 });
    const far = (n: number) => tokenWith((clock + 3_600_000) / 1000, n);
    await cache.verify(far(1));
    clock += 1000;
    await cache.verify(far(1));
    expect(inner.calls).toBe(2);
    await expect(cache.verify('bad')).rejects.toMatchObject({ code: 'DB_UNAUTHENTICATED' });
    await expect(cache.verify('bad')).rejects.toMatchObject({ code: 'DB_UNAUTHENTICATED' });
    expect(inner.calls).toBe(4);
    await cache.verify(far(2));
    await cache.verify(far(3));
    await cache.verify(far(1));
    expect(inner.calls).toBe(7);
  });
});
