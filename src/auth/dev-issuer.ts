import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type KeyLike } from 'jose';

const ALG = 'ES256';
const KEY_FILE = 'dev-issuer.jwk.json';

export interface DevIssuer {
  publicKey: KeyLike | Uint8Array;
  mint(claims: { sub: string; tenant: string; roles: string[]; ttlSeconds?: number }): Promise<string>;
}

/**
 * The development token issuer: an ES256 key pair generated once into the data directory (mode 0600), so a new
 * user can mint tokens with `deltabroker token` without an identity provider. Never enabled silently in production.
 */
export async function loadDevIssuer(dataDir: string, issuer: string, audience: string): Promise<DevIssuer> {
  const file = path.join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    const pair = await generateKeyPair(ALG, { extractable: true });
    const jwk = await exportJWK(pair.privateKey);
    try {
      writeFileSync(file, JSON.stringify({ ...jwk, alg: ALG, kid: `dev-${Date.now()}` }), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first; use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  const { d: _private, ...publicJwk } = privateJwk;
  const privateKey = await importJWK(privateJwk, ALG);
  const publicKey = await importJWK(publicJwk, ALG);
  return {
    publicKey,
    mint: ({ sub, tenant, roles, ttlSeconds = 3600 }) =>
      new SignJWT({ tenant, roles })
        .setProtectedHeader({ alg: ALG, kid: privateJwk.kid })
        .setSubject(sub)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(privateKey),
  };
}
