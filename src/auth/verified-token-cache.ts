import type { Principal, TokenVerifier } from './principal';

export interface VerifiedTokenCacheOptions {
  /** Most tokens remembered; the least recently used is forgotten first. */
  maxEntries?: number;
  /** Longest a verified token is trusted without being verified again, even when its `exp` is later. */
  maxAgeMs?: number;
  now?: () => number;
}

interface Entry {
  principal: Principal;
  until: number;
}

/** The `exp` claim (seconds) of a token that was just verified; its payload is then known to be well formed. */
function expiryMs(token: string): number {
  const payload = token.split('.')[1] ?? '';
  const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
  return typeof exp === 'number' ? exp * 1000 : 0;
}

/**
 * Remembers tokens that verified, until their `exp` (and at most `maxAgeMs`), so an authenticated request
 * costs a map look-up instead of a signature verification. Only successes are remembered: a bad token is
 * verified (and refused) every time. Bounded by `maxEntries`, least recently used out first.
 */
export function cacheVerifiedTokens(inner: TokenVerifier, options: VerifiedTokenCacheOptions = {}): TokenVerifier {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  return {
    async verify(token: string, at?: Date): Promise<Principal> {
      // A token judged at another moment is not what the cache remembers (validity now).
      if (at) return inner.verify(token, at);
      const hit = entries.get(token);
      if (hit) {
        entries.delete(token);
        if (hit.until > now()) {
          entries.set(token, hit);
          return hit.principal;
        }
      }
      const principal = await inner.verify(token);
      const until = Math.min(expiryMs(token), now() + maxAgeMs);
      if (until > now()) {
        entries.set(token, { principal, until });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return principal;
    },
  };
}
