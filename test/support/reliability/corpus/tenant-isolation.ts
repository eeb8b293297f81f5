import type { Prng } from '../prng';
import { BAD_KEY_PREFIX } from './http-bodies';
import { type CorpusContext, type HttpCase, json, JSON_HEADERS } from './types';

const auth = (token: string): Record<string, string> => ({ ...JSON_HEADERS, authorization: `Bearer ${token}` });
const raw = (text: string): Buffer => Buffer.from(text, 'utf8');

/**
 * Issue 15's attacks with well-formed tokens: another tenant reaching acme's entity, its ids or the operator's
 * metrics; delta ids too long or malformed; lone UTF-16 surrogates; `_source` naming a hidden field. Every
 * one must be refused in problem+json, and none may write anything.
 */
export function tenantIsolationCase(ctx: CorpusContext, prng: Prng): HttpCase {
  const key = `${BAD_KEY_PREFIX}${prng.string(8)}`;
  const shapes: [string, () => Omit<HttpCase, 'category' | 'note'>][] = [
    [
      "another tenant's token on acme's entity",
      () => ({
        method: 'POST',
        path: '/',
        headers: auth(ctx.otherTenantToken),
        body: json({
          dispatch: { entity: prng.pick(['merchant_account', 'account']), operation: prng.pick(['create', 'update', 'delete', 'read', 'search']) },
          payload: prng.pick([{ merchantId: key, name: 'Squat' }, '', {}]),
        }),
      }),
    ],
    [
      'another tenant squatting an Idempotency-Key',
      () => ({
        method: 'POST',
        path: '/',
        headers: { ...auth(ctx.otherTenantToken), 'idempotency-key': prng.pick(['acme-upd-key-1', `acme-${prng.string(6)}`]) },
        body: json({ dispatch: { entity: 'merchant_account', operation: 'update' }, payload: { merchantId: key, name: 'Squat' } }),
      }),
    ],
    [
      "a tenant's admin on the operator's metrics",
      () => ({ method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${prng.pick([ctx.adminToken, ctx.otherTenantToken, ctx.writerToken])}` } }),
    ],
    [
      'a delta id too long or malformed',
      () => ({
        method: 'GET',
        path: `/deltas/${prng.pick(['x'.repeat(prng.int(129, 8_000)), 'a%20b', 'a;b', '%C3%BC', `${'y'.repeat(300)}%00`])}`,
        headers: { authorization: `Bearer ${ctx.adminToken}` },
      }),
    ],
    [
      'a lone surrogate in a write',
      () => ({
        method: 'POST',
        path: '/',
        headers: auth(ctx.adminToken),
        body: raw(
          `{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":{"merchantId":"${key}","name":"A${prng.pick(['\\ud800', '\\udfff', '\\ud83d x', '\\ude00'])}"}}`,
        ),
      }),
    ],
    [
      'a lone surrogate in a payload key',
      () => ({
        method: 'POST',
        path: '/',
        headers: auth(ctx.adminToken),
        body: raw(`{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":{"merchantId":"${key}","name":"A","\\udbff":1}}`),
      }),
    ],
    [
      'a lone surrogate to encrypt',
      () => ({
        method: 'POST',
        path: '/dispatch',
        headers: auth(ctx.adminToken),
        body: raw(`{"dispatch":{"operation":"encrypt","method":"${prng.pick(['aes', 'hsm'])}"},"payload":"${prng.pick(['\\ud800', 'x\\udc00y', '\\ud83d'])}"}`),
      }),
    ],
    [
      '_source naming a hidden field',
      () => ({
        method: 'POST',
        path: '/',
        headers: auth(ctx.readerToken),
        body: json({
          dispatch: { entity: 'merchant_account', operation: 'search' },
          payload: { query: { match_all: {} }, _source: prng.pick(['iban', ['name', 'iban'], { includes: ['iban'] }]) },
        }),
      }),
    ],
  ];
  const [note, make] = prng.pick(shapes);
  return { category: 'tenant-isolation', note, ...make() };
}
