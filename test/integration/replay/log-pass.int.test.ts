/**
 * The replay's read of a persistence topic (log-pass.ts) against the embedded broker: consecutive log batches
 * of a partition reach the shadows as runs, so a history is applied in few transactions.
 */
import { PARTITIONS_AT_ONCE, readIntoShadows, RUN_RECORDS } from '../../../projections/replay/log-pass';
import type { ShadowWriter } from '../../../projections/replay/replay-target';
import { loadSchemas, type LogRecord, type ProjectedEvent, type RecordBatch } from '../../../src/log';
import { scratchPostgres } from '../../support/scratch-sql';
import { accountConfig, openReplayHarness, uniqueName, type EventSpec, type ReplayHarness } from './replay-harness';

/** A writer that keeps every record it takes, and hands each partition's run to `written` when it is written. */
function collecting(written: (run: RecordBatch<ProjectedEvent>) => Promise<void>): ShadowWriter {
  const taken = new Map<number, { batch: RecordBatch<ProjectedEvent>; records: LogRecord<ProjectedEvent>[] }>();
  return {
    begin: async () => undefined,
    take(batch) {
      const run = taken.get(batch.partition);
      if (run) run.records.push(...batch.records);
      else taken.set(batch.partition, { batch, records: [...batch.records] });
    },
    async write(partition) {
      const run = taken.get(partition);
      taken.delete(partition);
      if (run) await written({ ...run.batch, records: run.records });
    },
  };
}

describe('replay read into the shadows', () => {
  let h: ReplayHarness;
  beforeAll(async () => {
    const { sql, close } = await scratchPostgres('dbt_logpass');
    h = await openReplayHarness(sql, close);
  });
  afterAll(async () => h?.close());

  test('hands each partition over in runs of consecutive records (not one per log batch), every record once, in order', async () => {
    const config = h.put(accountConfig(uniqueName('runs')));
    // About 2 MB per partition: more than one fetch (1 MB per partition) brings, so the log hands several batches.
    const name = 'n'.repeat(1200);
    const history: EventSpec[] = Array.from({ length: 4500 }, (_, i) => ({
      operation: 'create',
      key: `r${i}`,
      version: 1,
      payload: { accountId: `r${i}`, name },
    }));
    await h.log.createTopics([{ topic: config.persistence.topic, partitions: 3 }]);
    const published = [];
    for (let i = 0; i < history.length; i += 300) published.push(...(await h.publish(config, history.slice(i, i + 300))));
    const runs: RecordBatch<ProjectedEvent>[] = [];
    const result = await readIntoShadows({
      log: h.log,
      schemas: loadSchemas(),
      topic: config.persistence.topic,
      from: { kind: 'offsets', offsets: [0, 1, 2].map((partition) => ({ partition, offset: '0' })) },
      writers: [collecting(async (run) => void runs.push(run))],
      parallel: true,
    });
    expect(result.records).toBe(history.length);
    const partitions = [...new Set(published.map((p) => p.partition))];
    for (const partition of partitions) {
      const mine = runs.filter((r) => r.partition === partition);
      const expected = published.filter((p) => p.partition === partition).map((p) => p.offset);
      expect(mine).toHaveLength(Math.ceil(expected.length / RUN_RECORDS));
      expect(mine.flatMap((r) => r.records.map((rec) => rec.offset))).toEqual(expected);
    }
    // Decoded with the projections' reader schema: the delta's id, actor and origin are skipped, not built.
    expect(Object.keys(runs[0]?.records[0]?.value ?? {}).sort()).toEqual([
      'entity',
      'eventId',
      'key',
      'operation',
      'payload',
      'recordedAt',
      'tenant',
      'version',
    ]);
  });

  test(`reads at most ${PARTITIONS_AT_ONCE} partitions at the same time, and every partition of a larger topic`, async () => {
    const config = h.put(accountConfig(uniqueName('wide')));
    const partitionCount = PARTITIONS_AT_ONCE + 3;
    await h.log.createTopics([{ topic: config.persistence.topic, partitions: partitionCount }]);
    const history: EventSpec[] = Array.from({ length: 400 }, (_, i) => ({ operation: 'create', key: `w${i}`, version: 1, payload: { accountId: `w${i}` } }));
    const published = await h.publish(config, history);
    expect(new Set(published.map((p) => p.partition)).size).toBe(partitionCount);
    let applying = 0;
    let most = 0;
    const runs: RecordBatch<ProjectedEvent>[] = [];
    const result = await readIntoShadows({
      log: h.log,
      schemas: loadSchemas(),
      topic: config.persistence.topic,
      from: { kind: 'offsets', offsets: Array.from({ length: partitionCount }, (_, partition) => ({ partition, offset: '0' })) },
      // Each partition's one run is written when its read ends and holds its reader until written.
      writers: [
        collecting(async (run) => {
          applying += 1;
          most = Math.max(most, applying);
          await new Promise((resolve) => setTimeout(resolve, 50));
          runs.push(run);
          applying -= 1;
        }),
      ],
      parallel: true,
    });
    expect(result.records).toBe(history.length);
    expect(result.endOffsets.map((e) => e.partition).sort((a, b) => a - b)).toEqual(Array.from({ length: partitionCount }, (_, p) => p));
    expect(most).toBe(PARTITIONS_AT_ONCE);
    expect(runs.flatMap((r) => r.records.map((rec) => `${r.partition}/${rec.offset}`)).sort()).toEqual(
      published.map((p) => `${p.partition}/${p.offset}`).sort(),
    );
  });
});
