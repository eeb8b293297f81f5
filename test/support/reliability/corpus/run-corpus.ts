import { Prng } from '../prng';
import { BODY_GENERATORS } from './http-bodies';
import { QUERY_GENERATORS } from './queries';
import { tenantIsolationCase } from './tenant-isolation';
import { badEnvelopeCase, badTokenCase, type TokenForge } from './tokens';
import type { CorpusContext, HttpCase } from './types';

/** Share of the HTTP corpus per category. */
const WEIGHTS: Record<string, number> = {
  'broken-json': 14,
  'wrong-types': 16,
  'huge-values': 4,
  'deep-nesting': 5,
  'invalid-utf8': 8,
  'nul-character': 3,
  'bad-encoding': 10,
  'hostile-rql': 12,
  'hostile-dsl': 10,
  'bad-tokens': 14,
  'bad-envelope': 7,
  'tenant-isolation': 6,
};

/** The HTTP part of the corpus, generated in a fixed order from `seed`, so a failing case reproduces by index. */
export async function buildHttpCorpus(size: number, seed: number, ctx: CorpusContext, forge: TokenForge): Promise<HttpCase[]> {
  const prng = new Prng(seed);
  const total = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
  const cases: HttpCase[] = [];
  for (const [category, weight] of Object.entries(WEIGHTS)) {
    const count = Math.ceil((size * weight) / total);
    for (let i = 0; i < count; i++) {
      const generate = BODY_GENERATORS[category] ?? QUERY_GENERATORS[category];
      if (generate) cases.push(generate(ctx, prng));
      else if (category === 'bad-tokens') cases.push(await badTokenCase(ctx, forge, prng));
      else if (category === 'tenant-isolation') cases.push(tenantIsolationCase(ctx, prng));
      else cases.push(badEnvelopeCase(ctx, prng));
    }
  }
  return cases;
}

export interface HttpOutcome {
  index: number;
  case: HttpCase;
  status: number;
  contentType: string;
  body: Record<string, unknown> | undefined;
  ms: number;
  /** Set when no answer came: a timeout (a hang) or a reset connection. */
  failure?: string;
}

/** Sends every case, `concurrency` at a time, each with its own deadline: no answer in time counts as a hang. */
export async function runHttpCorpus(baseUrl: string, cases: HttpCase[], concurrency: number, timeoutMs: number): Promise<HttpOutcome[]> {
  const outcomes: HttpOutcome[] = new Array(cases.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index] as HttpCase;
      const started = Date.now();
      try {
        const response = await fetch(`${baseUrl}${c.path}`, {
          method: c.method,
          headers: c.headers,
          ...(c.body && { body: c.body }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        let body: Record<string, unknown> | undefined;
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          body = undefined;
        }
        outcomes[index] = { index, case: c, status: response.status, contentType: response.headers.get('content-type') ?? '', body, ms: Date.now() - started };
      } catch (error) {
        outcomes[index] = {
          index,
          case: c,
          status: 0,
          contentType: '',
          body: undefined,
          ms: Date.now() - started,
          failure: (error as Error).name + ': ' + (error as Error).message,
        };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

/** Why an outcome breaks the rules (undefined when it keeps them): no 5xx, no hang, refusals explained, nothing bad accepted. */
export function violation(o: HttpOutcome): string | undefined {
  if (o.failure) return `no answer: ${o.failure}`;
  if (o.status >= 500) return `status ${o.status}`;
  if (o.status < 400) return o.case.mayBeAnswered ? undefined : `accepted with ${o.status}`;
  if (o.case.transportRefusal) return o.status === 431 ? undefined : `expected 431 from the HTTP parser, got ${o.status}`;
  if (!o.contentType.includes('application/problem+json')) return `refusal ${o.status} is ${o.contentType || 'untyped'}, not problem+json`;
  const b = o.body ?? {};
  if (typeof b.code !== 'string' || typeof b.stage !== 'string') return `refusal without code/stage: ${JSON.stringify(b).slice(0, 200)}`;
  if ((b.code === 'DB_VALIDATION' || b.code === 'DB_BAD_REQUEST') && typeof b.field !== 'string' && typeof b.position !== 'number')
    return `validation refusal without field: ${JSON.stringify(b).slice(0, 200)}`;
  return undefined;
}
