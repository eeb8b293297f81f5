/**
 * The rebuild on embedded PGlite, whose one connection belongs to the swap transaction while the shadows
 * catch up inside it: the live projectors (same process) wait for it, then go on from the handover.
 */
import { physicalNamesOf } from '../../../src/tenant';
import { qualifiedTable } from '../../support/entities';
import { rebuildProjections, verifyProjection } from '../../../projections/replay';
import type { EntityConfig } from '../../../src/tenant';
import { accountConfig, expectedRows, historyOf, lastPerPartition, openReplayHarness, uniqueName, type EventSpec, type ReplayHarness } from './replay-harness';
import { scratchPglite } from '../../support/scratch-sql';

describe('replay and rebuild on PGlite', () => {
  let h: ReplayHarness;

  beforeAll(async () => {
    const { sql, close } = await scratchPglite('replay-pglite');
    h = await openReplayHarness(sql, close);
  });
  afterAll(async () => h?.close());

  const rowsOf = async (config: EntityConfig): Promise<[string, number][]> =>
    (await h.sql.query<{ accountId: string; _version: unknown }>(`select "accountId", "_version" from ${qualifiedTable(config)} order by "accountId"`)).rows.map((r) => [r.accountId, Number(r._version)]);

  test('rebuilds the table and the search index while writes go on, with the final catch-up inside the swap transaction', async () => {
    const config = h.put(accountConfig(uniqueName('lite')));
    await h.startLive();
    const history = historyOf(400, 2);
    await h.applied(lastPerPartition(await h.publish(config, history)));

    const during: EventSpec[] = [];
    let writing = true;
    const writer = (async () => {
      for (let round = 0; writing; round += 1) {
        const batch: EventSpec[] = Array.from({ length: 10 }, (_, i) => ({ operation: 'create', key: `w${round}_${i}`, version: 1, payload: { accountId: `w${round}_${i}`, name: 'during' } }));
        await h.publish(config, batch);
        during.push(...batch);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const result = await rebuildProjections(h.context(), { tenant: 'acme', entity: config.entity }, { catchUpThreshold: 0 });
    writing = false;
    await writer;
    await h.applied(lastPerPartition(await h.publish(config, [{ operation: 'create', key: 'zz', version: 1, payload: { accountId: 'zz' } }])));

    expect(result.targets.map((t) => t.kind)).toEqual(['postgres', 'search']);
    if (process.env.TEST_LOG) console.log(JSON.stringify({ passes: result.passes, swapMs: result.swapMs, events: result.events, during: during.length, handover: result.targets.map((t) => t.handover) }));
    const expected = expectedRows([...history, ...during, { operation: 'create', key: 'zz', version: 1 }]);
    expect(await rowsOf(config)).toEqual([...expected].map(([k, v]) => [k, v.version] as [string, number]).sort(([a], [b]) => (a < b ? -1 : 1)));
    const hits = await h.search.search(physicalNamesOf(config).index, { query: { match_all: {} }, track_total_hits: true, size: 0 });
    expect(hits.hits.total?.value).toBe(expected.size);
    expect(await verifyProjection(h.context(), { tenant: 'acme', entity: config.entity })).toMatchObject({ equal: true });
  });
});
