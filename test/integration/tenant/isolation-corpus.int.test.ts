/**
 * The bad-input corpus's parts that issue 15 added or changed (tenant isolation, malformed tenant claims,
 * strict encodings), run with the suite's own runner and rules against a test service: the reliability suite
 * itself is not part of `npm test`, these cases are.
 */
import { BAD_KEY_PREFIX, BODY_GENERATORS } from '../../support/reliability/corpus/http-bodies';
import { runHttpCorpus, violation } from '../../support/reliability/corpus/run-corpus';
import { tenantIsolationCase } from '../../support/reliability/corpus/tenant-isolation';
import { badTokenCase, loadTokenForge } from '../../support/reliability/corpus/tokens';
import type { CorpusContext, HttpCase } from '../../support/reliability/corpus/types';
import { Prng } from '../../support/reliability/prng';
import { testEntitiesDir } from '../../support/entities';
import { startTestService, type TestService } from '../../support/service';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20261123);

describe(`issue 15's bad-input cases (seed ${SEED})`, () => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
  });
  afterAll(() => t.stop());

  test('every case is refused in problem+json with code and stage, none answered 5xx, nothing written', async () => {
    const ctx: CorpusContext = {
      adminToken: await t.token(['admin']),
      writerToken: await t.token(['writer']),
      readerToken: await t.token(['reader']),
      otherTenantToken: await t.token(['admin'], { tenant: 'acme_merchant' }),
    };
    const forge = await loadTokenForge(t.config.dataDir);
    const prng = new Prng(SEED);
    const cases: HttpCase[] = [];
    for (let i = 0; i < 200; i++) cases.push(tenantIsolationCase(ctx, prng));
    for (let i = 0; i < 150; i++) cases.push(await badTokenCase(ctx, forge, prng));
    for (let i = 0; i < 60; i++) cases.push((BODY_GENERATORS['bad-encoding'] as (c: CorpusContext, p: Prng) => HttpCase)(ctx, prng));
    const count = async (sql: string) => Number((await t.service.sql.query<{ n: string }>(sql)).rows[0]?.n);
    const before = [await count('select count(*) as n from record_state'), await count('select count(*) as n from delta_outcomes')];

    const outcomes = await runHttpCorpus(t.url, cases, 4, 30_000);
    const report = outcomes.flatMap((o) => {
      const why = violation(o);
      return why === undefined ? [] : [`#${o.index} ${o.case.category} (${o.case.note}) ${o.case.method} ${o.case.path.slice(0, 60)}: ${why}`];
    });
    expect(report).toEqual([]);
    const notes = new Set(outcomes.filter((o) => o.case.category === 'tenant-isolation').map((o) => o.case.note));
    expect(notes.size).toBe(8);
    const malformedTenant = outcomes.filter((o) => o.case.note.startsWith('malformed tenant'));
    expect(malformedTenant.length).toBeGreaterThan(0);
    expect(new Set(malformedTenant.map((o) => o.status))).toEqual(new Set([401]));
    expect(outcomes.filter((o) => o.case.note === "a tenant's admin on the operator's metrics").map((o) => o.status)).toEqual(expect.arrayContaining([403]));

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([await count('select count(*) as n from record_state'), await count('select count(*) as n from delta_outcomes')]).toEqual(before);
    expect(await count(`select count(*) as n from record_state where record_key like '${BAD_KEY_PREFIX}%'`)).toBe(0);
  }, 120_000);
});
