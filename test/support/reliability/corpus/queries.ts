import type { Prng } from '../prng';
import { type CorpusContext, type HttpCase, json, JSON_HEADERS } from './types';

const FIELDS = ['merchantId', 'name', 'country', 'mcc', 'status', 'iban', 'colour', '_doc', '_version', 'tenant', '"name"', 'name;--', 'x'.repeat(70)];
const VALUES = [
  "x'; drop table tenant_acme.merchant_account; --",
  "' or '1'='1",
  '%00',
  '%ZZ',
  '%',
  '\\',
  '*',
  '?',
  '$1',
  '::text',
  'null',
  'number:abc',
  'date:not-a-date',
  'boolean:maybe',
  '1e400',
  '-',
  '%E2%82',
  'ÿ',
  '\u0000',
  '😀',
];
const OPS = [
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'in',
  'out',
  'contains',
  'like',
  'match',
  'not',
  'and',
  'or',
  'sort',
  'limit',
  'select',
  'exec',
  'sleep',
  'pg_sleep',
  'eval',
];

function randomTerm(prng: Prng, depth: number): string {
  if (depth > 0 && prng.chance(0.3)) {
    const parts = Array.from({ length: prng.int(1, 3) }, () => randomTerm(prng, depth - 1));
    return `${prng.pick(['and', 'or', 'not'])}(${parts.join(',')})`;
  }
  const op = prng.pick(OPS);
  const args = Array.from({ length: prng.int(0, 3) }, () => (prng.chance(0.5) ? prng.pick(FIELDS) : prng.pick(VALUES)));
  return `${op}(${args.join(',')})`;
}

/** Hostile RQL: injections in values and fields, unknown operators, deep nesting, broken syntax, huge limits. */
function hostileRql(ctx: CorpusContext, prng: Prng): HttpCase {
  const shapes: (() => string)[] = [
    () => randomTerm(prng, 3),
    () => `${'and('.repeat(prng.int(33, 5_000))}eq(name,x)${')'.repeat(prng.int(0, 5_000))}`,
    () => `eq(name,${'x'.repeat(prng.int(16_385, 200_000))})`,
    () => `limit(${prng.pick(['-1', '1e400', '99999999999999999999', 'x', '0,-5', '10,1e20', '1,2,3'])})`,
    () => `sort(${prng.pick(['+iban', '-colour', '++name', '', '+_doc', 'name desc'])})`,
    () => `select(${prng.pick(['iban', '*', '_doc', 'colour', 'name,name,name', ''])})`,
    () => `${prng.pick(FIELDS)}=${prng.pick(['eq', 'ge', 'zz', ''])}=${prng.pick(VALUES)}`,
    () => randomTerm(prng, 1).slice(0, prng.int(1, 20)),
    () => `in(mcc,(${Array.from({ length: prng.int(1, 50) }, () => prng.pick(VALUES)).join(',')}))`,
    () => `eq(mcc,${prng.pick(['abc', '1.5', '9'.repeat(40), 'string:1'])})`,
  ];
  const payload = prng.chance(0.9) ? prng.pick(shapes)() : prng.pick([42, null, {}, ['eq(a,b)'], true]);
  const token = prng.pick([ctx.adminToken, ctx.readerToken]);
  return {
    category: 'hostile-rql',
    note: JSON.stringify(payload).slice(0, 80),
    method: 'POST',
    path: '/',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: json({ dispatch: { entity: 'merchant_account', operation: 'read' }, payload }),
    mayBeAnswered: true,
  };
}

/** A bool query nested `depth` deep, as JSON text (too deep for JSON.stringify's recursion). */
function nestedBoolText(prng: Prng, depth: number): string {
  let open = '';
  for (let i = 0; i < depth; i++) open += `{"bool":{"${prng.pick(['must', 'should', 'filter', 'must_not'])}":[`;
  return `${open}{"term":{"country":"DE"}}${']}}'.repeat(depth)}`;
}

/** Hostile query DSL: scripts, other indexes, catastrophic regexps, deep bools, huge pages, unknown clauses. */
function hostileDsl(ctx: CorpusContext, prng: Prng): HttpCase {
  const shapes: (() => unknown)[] = [
    () => ({ query: { script: { script: { source: "java.lang.Runtime.getRuntime().exec('id')" } } } }),
    () => ({ query: { script_score: { query: { match_all: {} }, script: { source: '1' } } } }),
    () => ({ query: { regexp: { name: prng.pick(['(a+)+$', '(.*a){20}', '[', '\\', '((((((((((a))))))))))*'.repeat(10)]) } } }),
    () => ({ query: { wildcard: { name: '*'.repeat(prng.int(1, 5_000)) } } }),
    () => ({ query: { match_all: {} }, size: prng.pick([-1, 1e9, 'x', 1.5]), from: prng.pick([-5, 1e12, 'y']) }),
    () => ({ query: { terms: { country: { index: 'other_tenant_index', id: '1', path: 'x' } } } }),
    () => ({ index: prng.pick(['globex__merchant_account', 'acme_merchant_account_search']), query: { match_all: {} } }),
    () => ({ query: { [prng.pick(['percolate', 'geo_shape', 'has_child', 'nested', 'unknown_clause', 'sql'])]: { x: 1 } } }),
    () => ({ query: { term: { [prng.pick(['colour', 'iban', '_doc', 'tenant', 'name.keyword.x'])]: 'x' } } }),
    () => ({
      query: {
        [prng.pick(['term', 'match', 'prefix', 'wildcard'])]: { [prng.pick(['name', 'country', 'merchantId'])]: prng.pick(['\u0000', 'a\u0000b', '\ud800']) },
      },
    }),
    () => ({ aggs: { a: { [prng.pick(['scripted_metric', 'unknown_agg', 'terms'])]: { field: prng.pick(['iban', 'colour', 'name']), size: -1 } } } }),
    () => ({ query: { match_all: {} }, runtime_mappings: { x: { type: 'keyword', script: 'emit(1)' } } }),
    () => ({ query: { range: { mcc: { gte: prng.pick(['abc', {}, [], 'now-1d']) } } } }),
    () => ({ query: { match: { name: { query: 'x', fuzziness: prng.pick(['AUTO:-1', 99, 'x']) } } } }),
    () => ({ sort: [{ [prng.pick(['iban', 'colour', '_script'])]: 'asc' }] }),
    () => ({ query: { query_string: { query: prng.pick(['name:(a OR', 'iban:*', '*:*', '/(a+)+/']) } } }),
    () => prng.pick(['match_all', 42, null, [], true, 'query']),
  ];
  const payloadText = prng.chance(0.06) ? `{"query":${nestedBoolText(prng, prng.int(30, 2_000))}}` : JSON.stringify(prng.pick(shapes)());
  const token = prng.pick([ctx.adminToken, ctx.readerToken]);
  return {
    category: 'hostile-dsl',
    note: payloadText.slice(0, 80),
    method: 'POST',
    path: '/',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: Buffer.from(`{"dispatch":{"entity":"merchant_account","operation":"search"},"payload":${payloadText}}`),
    mayBeAnswered: true,
  };
}

export const QUERY_GENERATORS: Record<string, (ctx: CorpusContext, prng: Prng) => HttpCase> = {
  'hostile-rql': hostileRql,
  'hostile-dsl': hostileDsl,
};
