import type { Prng } from '../prng';
import { type CorpusContext, type HttpCase, json, JSON_HEADERS } from './types';

/** Record keys of the corpus: nothing with this prefix may ever reach the log or a table. */
export const BAD_KEY_PREFIX = 'bad-';

const auth = (token: string): Record<string, string> => ({ ...JSON_HEADERS, authorization: `Bearer ${token}` });

function validWrite(prng: Prng): Record<string, unknown> {
  return {
    dispatch: { entity: 'merchant_account', operation: prng.pick(['create', 'update']) },
    payload: { merchantId: `${BAD_KEY_PREFIX}${prng.string(8)}`, name: 'Bad', country: 'DE', mcc: 5411 },
  };
}

function validEncrypt(prng: Prng): Record<string, unknown> {
  return { dispatch: { operation: 'encrypt', method: prng.pick(['aes', 'hsm', 'aes256skv1']) }, payload: prng.string(20) };
}

/** Breaks JSON text so that it no longer parses: truncation, a stray or missing character, trailing garbage. */
function breakJson(text: string, prng: Prng): string {
  for (;;) {
    const at = prng.int(1, text.length - 1);
    const broken = prng.pick([
      () => text.slice(0, at),
      () => text.slice(0, at) + prng.pick(['{', '}', '[', ']', ',', ':', '"', '\\', "'", 'undefined', 'NaN', '\u0000']) + text.slice(at),
      () => text.slice(0, at) + text.slice(at + 1),
      () => `${text}${prng.pick(['}', ',', ' x', '{}', '//comment', '\n]'])}`,
      () => text.replace(/"/g, "'"),
      () => text.replace(/:/, ''),
      () => `${text.slice(0, at)},,${text.slice(at)}`,
    ])();
    try {
      JSON.parse(broken);
    } catch {
      return broken;
    }
  }
}

function brokenJson(ctx: CorpusContext, prng: Prng): HttpCase {
  const storage = prng.chance(0.6);
  const text = JSON.stringify(storage ? validWrite(prng) : validEncrypt(prng));
  return {
    category: 'broken-json',
    note: 'unparseable JSON',
    method: 'POST',
    path: storage ? '/' : '/dispatch',
    headers: auth(ctx.adminToken),
    body: Buffer.from(breakJson(text, prng)),
  };
}

/** A value of a type the field does not take. */
const WRONG_VALUES: unknown[] = [42, -1, 1.5, true, false, null, [], {}, ['x'], { a: 1 }, '', 'x'.repeat(3)];

function wrongTypes(ctx: CorpusContext, prng: Prng): HttpCase {
  const body = validWrite(prng);
  const dispatch = body.dispatch as Record<string, unknown>;
  const payload = body.payload as Record<string, unknown>;
  const pickNot = (ok: (v: unknown) => boolean): unknown => {
    for (;;) {
      const v = prng.pick(WRONG_VALUES);
      if (!ok(v)) return v;
    }
  };
  const mutations: [string, () => void][] = [
    ['dispatch.entity', () => (dispatch.entity = pickNot((v) => typeof v === 'string' && v !== '' && v !== 'xxx'))],
    ['dispatch.operation', () => (dispatch.operation = pickNot(() => false))],
    ['dispatch.expectedVersion', () => (dispatch.expectedVersion = prng.pick([-1, 1.5, '1', true, [], {}, Infinity, -0.5]))],
    ['dispatch', () => (body.dispatch = pickNot((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0))],
    ['dispatch.unknown', () => (dispatch[prng.pick(['entityy', 'op', 'tenant', '__proto__x'])] = 'x')],
    ['top-level unknown', () => (body[prng.pick(['tenant', 'payloads', 'extra'])] = 1)],
    ['payload', () => (body.payload = prng.pick([42, 'text', [], true, null, ['a']]))],
    ['payload.name', () => (payload.name = pickNot((v) => typeof v === 'string'))],
    ['payload.mcc', () => (payload.mcc = prng.pick(['5411', 1.5, true, [], {}, 'x', Infinity, -Infinity]))],
    ['payload.country', () => (payload.country = pickNot((v) => typeof v === 'string' || v === null))],
    ['payload.merchantId', () => (payload.merchantId = pickNot((v) => typeof v === 'string' && v !== ''))],
    ['payload.unknown', () => (payload[prng.pick(['colour', 'tenant', '_version', '_doc', 'constructor'])] = 'x')],
    ['payload.iban', () => (payload.iban = prng.pick(['DE89370400440532013000', 'aes256skv1:default:v1:AAAA', 'hsmv1:x:v0:!!', 42, 'vault:v1:abc']))],
  ];
  const [note, mutate] = prng.pick(mutations);
  mutate();
  // JSON.stringify writes 1e400 as null: keep the wire text honest by writing the infinities out.
  const text = JSON.stringify(body, (_k, v: unknown) => (v === Infinity ? '__INF__' : v === -Infinity ? '__NINF__' : v))
    .replace(/"__INF__"/g, '1e400')
    .replace(/"__NINF__"/g, '-1e400');
  return { category: 'wrong-types', note, method: 'POST', path: '/', headers: auth(ctx.adminToken), body: Buffer.from(text) };
}

function hugeValues(ctx: CorpusContext, prng: Prng): HttpCase {
  const kind = prng.pick(['body-over-limit', 'encrypt-over-payload-limit', 'huge-number', 'huge-expected-version', 'huge-entity-name', 'huge-key-count']);
  let body: Buffer;
  let path = '/';
  if (kind === 'body-over-limit') {
    body = json({ ...validWrite(prng), payload: { merchantId: `${BAD_KEY_PREFIX}big`, name: 'x'.repeat(prng.int(1_100_000, 2_500_000)) } });
  } else if (kind === 'encrypt-over-payload-limit') {
    path = '/dispatch';
    body = json({ dispatch: { operation: 'encrypt', method: prng.pick(['aes', 'hsm']) }, payload: 'x'.repeat(prng.int(65_537, 900_000)) });
  } else if (kind === 'huge-number') {
    const w = validWrite(prng);
    body = Buffer.from(JSON.stringify(w).replace('5411', prng.pick(['1e400', '-1e400', '9'.repeat(400), '1'.repeat(50_000)])));
  } else if (kind === 'huge-expected-version') {
    const w = validWrite(prng);
    (w.dispatch as Record<string, unknown>).expectedVersion = prng.pick([2 ** 53, 2 ** 64, 1e300]);
    body = json(w);
  } else if (kind === 'huge-entity-name') {
    const w = validWrite(prng);
    (w.dispatch as Record<string, unknown>).entity = 'e'.repeat(prng.int(64, 100_000));
    body = json(w);
  } else {
    const w = validWrite(prng);
    const payload = w.payload as Record<string, unknown>;
    for (let i = 0; i < prng.int(1_000, 20_000); i++) payload[`f${i}`] = i;
    body = json(w);
  }
  return { category: 'huge-values', note: kind, method: 'POST', path, headers: auth(ctx.adminToken), body };
}

function deepNesting(ctx: CorpusContext, prng: Prng): HttpCase {
  const depth = prng.pick([100, 1_000, 10_000, 100_000, 400_000]);
  const array = prng.chance(0.5);
  const open = array ? '['.repeat(depth) : '{"a":'.repeat(depth);
  const close = array ? ']'.repeat(depth) : '}'.repeat(depth);
  const where = prng.pick(['payload.name', 'payload', 'top', 'dispatch.entity', 'encrypt.payload']);
  const key = `${BAD_KEY_PREFIX}${prng.string(8)}`;
  const text =
    where === 'payload.name'
      ? `{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":{"merchantId":"${key}","name":${open}1${close}}}`
      : where === 'payload'
        ? `{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":${open}1${close}}`
        : where === 'dispatch.entity'
          ? `{"dispatch":{"entity":${open}1${close},"operation":"create"},"payload":{}}`
          : where === 'encrypt.payload'
            ? `{"dispatch":{"operation":"encrypt","method":"aes"},"payload":${open}1${close}}`
            : `${open}1${close}`;
  return {
    category: 'deep-nesting',
    note: `${where} depth ${depth}`,
    method: 'POST',
    path: where === 'encrypt.payload' ? '/dispatch' : '/',
    headers: auth(ctx.adminToken),
    body: Buffer.from(text),
  };
}

/** Bytes that are not UTF-8 (lone continuation bytes, overlongs, surrogates, truncated sequences) inside JSON strings. */
const INVALID_UTF8: number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

function invalidUtf8(ctx: CorpusContext, prng: Prng): HttpCase {
  const bad = Buffer.from(prng.pick(INVALID_UTF8));
  const storage = prng.chance(0.7);
  const key = `${BAD_KEY_PREFIX}${prng.string(8)}`;
  const [before, after] = storage
    ? prng.pick([
        [`{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":{"merchantId":"${key}","name":"Ad`, `a"}}`],
        [`{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":{"merchantId":"${key}`, `","name":"Ada"}}`],
        [`{"dispatch":{"entity":"merchant_`, `account","operation":"create"},"payload":{"merchantId":"${key}","name":"Ada"}}`],
      ])
    : [`{"dispatch":{"operation":"encrypt","method":"aes"},"payload":"hel`, `lo"}`];
  return {
    category: 'invalid-utf8',
    note: `bytes ${bad.toString('hex')}`,
    method: 'POST',
    path: storage ? '/' : '/dispatch',
    headers: auth(ctx.adminToken),
    body: Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]),
  };
}

/** U+0000 (as JSON's escape) where a write would store it: PostgreSQL's text and jsonb cannot hold it. */
function nulCharacter(ctx: CorpusContext, prng: Prng): HttpCase {
  const key = `${BAD_KEY_PREFIX}${prng.string(8)}`;
  const where = prng.pick(['payload.name', 'payload.key', 'payload.nested-key', 'dispatch.entity']);
  const payload =
    where === 'payload.name'
      ? `{"merchantId":"${key}","name":"Ad\\u0000a"}`
      : where === 'payload.key'
        ? `{"merchantId":"${key}\\u0000","name":"Ada"}`
        : where === 'payload.nested-key'
          ? `{"merchantId":"${key}","name":"Ada","address":{"c\\u0000ity":"Lyon"}}`
          : `{"merchantId":"${key}","name":"Ada"}`;
  const entity = where === 'dispatch.entity' ? 'merchant_account\\u0000' : 'merchant_account';
  return {
    category: 'nul-character',
    note: where,
    method: 'POST',
    path: '/',
    headers: auth(ctx.adminToken),
    body: Buffer.from(`{"dispatch":{"entity":"${entity}","operation":"create"},"payload":${payload}}`),
  };
}

function badEncoding(ctx: CorpusContext, prng: Prng): HttpCase {
  const encoding = prng.pick(['base64', 'base64url', 'hex']);
  const payload =
    encoding === 'hex'
      ? prng.pick(['abc', '0g', 'zz', '00 ff', '0x00ff', 'ÿÿ', '00ff\n', '-1', ''.padEnd(prng.int(1, 40) * 2 + 1, 'a')])
      : prng.pick([
          // base64 takes + and /, base64url takes - and _: each alphabet's own characters are wrong for the other.
          ...(encoding === 'base64' ? ['AP8B-g==', 'AP8B_g==', '-_-_'] : ['AP8B+g', 'AP8B/g', '+/+/']),
          // Decoding is strict (docs/http-api.md): whitespace and line breaks are refused too.
          '@@@@',
          'A',
          'AAAAA',
          '*'.repeat(prng.int(1, 50)),
          'ÿÿÿÿ',
          'AP8B%2Fg',
          'AP8B\n/g==',
          ' AP8B',
          'AP8B\r\n',
          'AP 8B',
        ]);
  const operation = prng.pick(['encrypt', 'decrypt']);
  const body =
    operation === 'encrypt'
      ? { dispatch: { operation, method: prng.pick(['aes', 'hsm']), encoding }, payload }
      : {
          dispatch: { operation, encoding },
          payload: prng.pick([
            'aes256skv1:default:v1:!!!!',
            'aes256skv1:default:v1:',
            'hsmv1:default:vX:AAAA',
            'nope',
            'aes256skv1:default:v1:' + 'A'.repeat(prng.int(1, 30)),
            `aes256skv1:default:v99999:${'A'.repeat(40)}`,
          ]),
        };
  return {
    category: 'bad-encoding',
    note: `${operation} ${encoding} ${JSON.stringify(body.payload).slice(0, 40)}`,
    method: 'POST',
    path: '/dispatch',
    headers: auth(ctx.adminToken),
    body: json(body),
  };
}

export const BODY_GENERATORS: Record<string, (ctx: CorpusContext, prng: Prng) => HttpCase> = {
  'broken-json': brokenJson,
  'wrong-types': wrongTypes,
  'huge-values': hugeValues,
  'deep-nesting': deepNesting,
  'invalid-utf8': invalidUtf8,
  'nul-character': nulCharacter,
  'bad-encoding': badEncoding,
};
