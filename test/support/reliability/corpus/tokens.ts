import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike, SignJWT } from 'jose';
import type { Prng } from '../prng';
import { type CorpusContext, type HttpCase, json, JSON_HEADERS } from './types';

/** Signing material for forged tokens: the service's own dev key (for wrong claims) and keys it never trusted. */
export interface TokenForge {
  devKey: KeyLike | Uint8Array;
  devKid: string;
  strangerKey: KeyLike | Uint8Array;
  strangerRsa: KeyLike | Uint8Array;
  /** The dev issuer's public key as an HS256 secret: the algorithm-confusion attack. */
  publicAsSecret: Uint8Array;
}

export async function loadTokenForge(dataDir: string): Promise<TokenForge> {
  const jwk = JSON.parse(readFileSync(path.join(dataDir, 'dev-issuer.jwk.json'), 'utf8')) as JWK;
  const { d: _private, ...publicJwk } = jwk;
  const stranger = await generateKeyPair('ES256');
  const rsa = await generateKeyPair('RS256');
  return {
    devKey: await importJWK(jwk, 'ES256'),
    devKid: jwk.kid ?? '',
    strangerKey: stranger.privateKey,
    strangerRsa: rsa.privateKey,
    publicAsSecret: new TextEncoder().encode(JSON.stringify(await exportJWK(await importJWK(publicJwk, 'ES256')))),
  };
}

const b64url = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A token this service must refuse, with the reason it must be refused. */
async function forgedToken(forge: TokenForge, prng: Prng): Promise<[string, string]> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: 'mallory', tenant: 'acme', roles: ['admin'], iss: 'deltabroker-dev', aud: 'deltabroker', iat: now, exp: now + 600 };
  const signDev = (c: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT(c).setProtectedHeader({ alg: 'ES256', kid: forge.devKid, ...header }).sign(forge.devKey);
  const shapes: [string, () => Promise<string> | string][] = [
    ['expired', () => signDev({ ...claims, iat: now - 7_200, exp: now - prng.int(60, 3_600) })],
    ['not yet valid', () => signDev({ ...claims, nbf: now + prng.int(120, 86_400) })],
    ['wrong issuer', () => signDev({ ...claims, iss: prng.pick(['evil', 'deltabroker-devx', '']) })],
    ['wrong audience', () => signDev({ ...claims, aud: prng.pick(['other', ['x', 'y'], '']) })],
    ['no tenant', () => signDev({ ...claims, tenant: prng.pick([undefined, '', 42, ['acme']]) })],
    // Issue 15: a tenant claim that breaks the tenant name pattern names no tenant.
    [
      'malformed tenant',
      () =>
        signDev({
          ...claims,
          tenant: prng.pick(['../acme', 'ACME', 'acme ', 'acme%00', 'acme\u0000', '\uff41\uff43\uff4d\uff45', 'acme__x', 'acme_', 'acme/x', 'a'.repeat(31)]),
        }),
    ],
    ['roles not a list of strings', () => signDev({ ...claims, roles: prng.pick(['admin', [1], { admin: true }, null]) })],
    ['no expiry', () => signDev({ sub: 'mallory', tenant: 'acme', roles: ['admin'], iss: 'deltabroker-dev', aud: 'deltabroker' })],
    ['no subject', () => signDev({ ...claims, sub: undefined })],
    ['stranger ES256 key', () => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: forge.devKid }).sign(forge.strangerKey)],
    ['stranger RS256 key', () => new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(forge.strangerRsa)],
    ['HS256 with the public key as secret', () => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(forge.publicAsSecret)],
    ['alg none', () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`],
    [
      'tampered claims',
      async () => {
        const [h, , s] = (await signDev(claims)).split('.');
        return `${h}.${b64url({ ...claims, tenant: 'globex' })}.${s}`;
      },
    ],
    [
      'tampered signature',
      async () => {
        const token = await signDev(claims);
        return token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      },
    ],
    ['garbage', () => prng.pick(['x', 'a.b.c', '...', 'eyJ.eyJ.', 'Bearer', '\u00ff\u00fe', prng.string(prng.int(1, 4_000), 'abcXYZ._-+/=')])],
    ['header not JSON', () => `${b64url('not json')}.${b64url(claims)}.sig`],
    // Below Node's 16 KiB header limit, so the verifier sees it (header overflow is a bad-envelope case).
    ['huge token', () => `${b64url({ alg: 'ES256' })}.${b64url({ ...claims, pad: 'x'.repeat(prng.int(5_000, 10_000)) })}.sig`],
  ];
  const [reason, make] = prng.pick(shapes);
  return [reason, await make()];
}

/** Requests with forged, expired, malformed or missing credentials on every authenticated route. */
export async function badTokenCase(_ctx: CorpusContext, forge: TokenForge, prng: Prng): Promise<HttpCase> {
  const [reason, token] = await forgedToken(forge, prng);
  const scheme = prng.pick(['Bearer ', 'Bearer ', 'Bearer ', 'bearer  ', 'Basic ', 'Token ', '']);
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (!prng.chance(0.05)) headers.authorization = `${scheme}${token}`;
  const route = prng.pick([
    {
      method: 'POST' as const,
      path: '/',
      body: json({ dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'bad-token', name: 'X' } }),
    },
    { method: 'POST' as const, path: '/dispatch', body: json({ dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' }) },
    { method: 'GET' as const, path: '/whoami' },
    { method: 'GET' as const, path: '/keys' },
    { method: 'GET' as const, path: '/deltas/x' },
  ]);
  return {
    category: 'bad-tokens',
    note: `${reason} (${scheme.trim() || 'no scheme'})`,
    method: route.method,
    path: route.path,
    headers,
    ...(route.body && { body: route.body }),
  };
}

/** Wrong media types, methods, routes, idempotency keys and request ids, with a valid token. */
export function badEnvelopeCase(ctx: CorpusContext, prng: Prng): HttpCase {
  const headers: Record<string, string> = { authorization: `Bearer ${ctx.adminToken}` };
  const valid = json({ dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: `bad-${prng.string(8)}`, name: 'X' } });
  const shapes: [string, () => HttpCase][] = [
    [
      'content-type',
      () => ({
        category: 'bad-envelope',
        note: 'content-type',
        method: 'POST',
        path: '/',
        headers: {
          ...headers,
          'content-type': prng.pick([
            'text/plain',
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
            'application/jsonx',
          ]),
        },
        body: valid,
      }),
    ],
    [
      'empty body',
      () => ({
        category: 'bad-envelope',
        note: 'empty body',
        method: 'POST',
        path: prng.pick(['/', '/dispatch']),
        headers: { ...headers, ...JSON_HEADERS },
        body: Buffer.alloc(0),
      }),
    ],
    [
      'method',
      () => ({
        category: 'bad-envelope',
        note: 'method',
        method: prng.pick(['PUT', 'DELETE'] as const),
        path: prng.pick(['/', '/dispatch', '/keys']),
        headers: { ...headers, ...JSON_HEADERS },
        body: valid,
      }),
    ],
    [
      'route',
      () => ({
        category: 'bad-envelope',
        note: 'route',
        method: 'GET',
        path: prng.pick(['/nope', '/../etc/passwd', '/%00', '/deltas/', '/keys/rotate/x', `/${prng.string(200)}`]),
        headers,
      }),
    ],
    [
      'header overflow',
      () => ({
        category: 'bad-envelope',
        note: 'header overflow',
        method: 'GET',
        path: '/whoami',
        headers: { ...headers, 'x-padding': 'x'.repeat(prng.int(17_000, 60_000)) },
        transportRefusal: true,
      }),
    ],
    [
      'idempotency key',
      () => ({
        category: 'bad-envelope',
        note: 'idempotency key',
        method: 'POST',
        path: '/',
        headers: { ...headers, ...JSON_HEADERS, 'idempotency-key': prng.pick(['has space', 'x'.repeat(129), 'semi;colon', 'ü', '../x']) },
        body: valid,
      }),
    ],
  ];
  return prng.pick(shapes)[1]();
}
