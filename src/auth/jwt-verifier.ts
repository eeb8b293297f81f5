import { createRemoteJWKSet, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type KeyLike } from 'jose';
import { DeltabrokerError } from '../errors';
import { isTenantName, MAX_NAME_LENGTH } from '../tenant/entity-config';
import type { Principal, TokenVerifier } from './principal';

export interface JwtVerifierOptions {
  issuer: string;
  audience: string;
  tenantClaim: string;
  rolesClaim: string;
  /** Keys tried in order: a JWKS endpoint, a configured public key, the dev issuer's key. */
  jwksUrl?: string;
  publicKeyPem?: string;
  devPublicKey?: KeyLike | Uint8Array;
}

const CLOCK_TOLERANCE_SECONDS = 5;

/** Verifies JWTs with jose against the configured keys and maps claims onto a Principal. */
export async function createJwtVerifier(options: JwtVerifierOptions): Promise<TokenVerifier> {
  const keys: (KeyLike | Uint8Array | JWTVerifyGetKey)[] = [];
  if (options.jwksUrl) keys.push(createRemoteJWKSet(new URL(options.jwksUrl)));
  if (options.publicKeyPem) keys.push(await importPublicKey(options.publicKeyPem));
  if (options.devPublicKey) keys.push(options.devPublicKey);

  const unauthenticated = (message: string, cause?: unknown): DeltabrokerError =>
    new DeltabrokerError('DB_UNAUTHENTICATED', message, { field: 'Authorization', rule: 'bearer-jwt', stage: 'auth' }, { cause });

  return {
    async verify(token: string, at?: Date): Promise<Principal> {
      let payload: JWTPayload | undefined;
      let lastError: unknown;
      for (const key of keys) {
        try {
          const verifyOptions = {
            issuer: options.issuer,
            audience: options.audience,
            clockTolerance: CLOCK_TOLERANCE_SECONDS,
            requiredClaims: ['exp', 'sub'],
            ...(at && { currentDate: at }),
          };
          const result = typeof key === 'function' ? await jwtVerify(token, key, verifyOptions) : await jwtVerify(token, key, verifyOptions);
          payload = result.payload;
          break;
        } catch (error) {
          lastError = error;
        }
      }
      if (!payload) throw unauthenticated(describeJoseError(lastError), lastError);
      const tenant = payload[options.tenantClaim];
      const roles = payload[options.rolesClaim];
      if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated('the token has no subject');
      if (typeof tenant !== 'string' || tenant === '') throw unauthenticated(`the token has no '${options.tenantClaim}' claim`);
      // Tenant names become parts of schema, topic and index names: a claim that breaks the pattern names no tenant.
      if (!isTenantName(tenant)) {
        throw unauthenticated(
          `the token's '${options.tenantClaim}' claim is not a tenant name (1-${MAX_NAME_LENGTH} lowercase letters and digits in words joined by single underscores)`,
        );
      }
      if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) {
        throw unauthenticated(`the token's '${options.rolesClaim}' claim must be a list of strings`);
      }
      return { user: payload.sub, tenant, roles };
    },
  };
}

async function importPublicKey(pem: string): Promise<KeyLike | Uint8Array> {
  if (!pem.includes('BEGIN PUBLIC KEY')) return new TextEncoder().encode(pem);
  const alg = pem.length > 300 ? 'RS256' : 'ES256';
  return importSPKI(pem, alg);
}

function describeJoseError(error: unknown): string {
  const code = (error as { code?: string } | undefined)?.code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return 'the token lacks a required claim (exp, sub) or was issued for another issuer or audience';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'the token signature is not valid';
    default:
      return 'the token is not a valid JWT';
  }
}
