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
  /** The token's own validity window (`nbf`, `exp`), in epoch ms. */
  notBefore: number;
  expires: number;
  /** When the cache forgets it (at most maxAgeMs after it was verified). */
  forgetAt: number;
}

/** The `nbf` and `exp` claims of a token that was just verified; its payload is then known to be well formed. */
function windowOf(token: string): { notBefore: number; expires: number } {
  const payload = token.split('.')[1] ?? '';
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { nbf?: unknown; exp?: unknown };
  return { notBefore: typeof claims.nbf === 'number' ? claims.nbf * 1000 : 0, expires: typeof claims.exp === 'number' ? claims.exp * 1000 : 0 };
}

/**
 * Remembers tokens whose signature and claims verified, so an authenticated request (or a delta's proof, judged
 * at its record's timestamp) costs a map look-up and a comparison of times instead of a signature verification.
 * A remembered token answers only for a moment inside its own `nbf`…`exp`; any other moment goes to the verifier,
 * which judges it (clock tolerance included) and refuses it. Only successes are remembered, at most `maxAgeMs`
 * each (so a revoked signing key stops working within that time); bounded by `maxEntries`, least recently used
 * out first.
 */
export function cacheVerifiedTokens(inner: TokenVerifier, options: VerifiedTokenCacheOptions = {}): TokenVerifier {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  return {
    async verify(token: string, at?: Date): Promise<Principal> {
      const moment = at?.getTime() ?? now();
      const hit = entries.get(token);
      if (hit) {
        entries.delete(token);
        if (hit.forgetAt > now()) {
          entries.set(token, hit);
          if (moment >= hit.notBefore && moment < hit.expires) return hit.principal;
        }
      }
      const principal = await inner.verify(token, at);
      const entry = { principal, ...windowOf(token), forgetAt: now() + maxAgeMs };
      if (entry.expires > now()) {
        entries.set(token, entry);
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return principal;
    },
  };
}
