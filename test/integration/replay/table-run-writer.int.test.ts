/**
 * A replay's writer for a shadow table (table-run-writer.ts) on PostgreSQL: runs folded as they are read write what
 * the table projection writes for the same records, under the shadow's checkpoint.
 */
import { TableProjection } from '../../../projections/postgres/table-projection';
import { projectionTableOf } from '../../../projections/postgres/table-schema';
import { checkpointsOf, writeCheckpoints } from '../../../projections/replay/checkpoints';
import { TableRunWriter } from '../../../projections/replay/table-run-writer';
import { migrate } from '../../../src/store/migrator';
import type { LogRecord, ProjectedEvent, RecordBatch } from '../../../src/log';
import type { SqlClient } from '../../../src/store/sql-client';
import { silentLogger } from '../../../src/logger';
import { InMemoryEntityConfigSource, type EntityConfig } from '../../../src/tenant';
import { scratchPostgres } from '../../support/scratch-sql';
import { accountConfig, uniqueName } from './replay-harness';

const TOPIC = 'acme.runs.events';

let offset = 0;
function event(config: EntityConfig, operation: ProjectedEvent['operation'], key: string, version: number, payload: string | null): LogRecord<ProjectedEvent> {
  const at = offset++;
  const value: ProjectedEvent = {
    eventId: `e${at}`,
    tenant: config.tenant,
    entity: config.entity,
    operation,
    key,
    version,
    payload,
    recordedAt: 1_767_225_600_000 + at,
  };
  return {
    topic: TOPIC,
    partition: 0,
    offset: String(at),
    key: `${config.tenant}/${config.entity}/${key}`,
    value,
    headers: {},
    timestamp: value.recordedAt,
    schemaId: 1,
  };
}
const doc = (key: string, name: string): string => JSON.stringify({ accountId: key, name });
const batchOf = (records: LogRecord<ProjectedEvent>[]): RecordBatch<ProjectedEvent> => ({
  topic: TOPIC,
  partition: 0,
  records,
  rejected: 0,
  highWatermark: String(Number(records.at(-1)?.offset ?? -1) + 1),
});

describe('a replay writer folding a shadow table’s runs as it reads them', () => {
  let sql: SqlClient;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ sql, close } = await scratchPostgres('dbt_tablerun'));
    await migrate(sql, silentLogger());
  });
  afterAll(async () => close?.());

  const setUp = async () => {
    const entities = new InMemoryEntityConfigSource();
    const config = entities.put(accountConfig(uniqueName('runs')));
    const projector = uniqueName('shadow');
    const projection = new TableProjection({ sql, entities, logger: silentLogger(), projector });
    const writer = new TableRunWriter({ projection, config, sql, topic: TOPIC, logger: silentLogger() });
    const rows = async () =>
      (
        await sql.query<{ id: string; name: string; v: number }>(
          `select "accountId" as id, name, _version::int as v from ${projectionTableOf(config).qualifiedName} order by 1`,
        )
      ).rows;
    return { entities, config, projector, projection, writer, rows };
  };
  const noReread = () => Promise.reject(new Error('not read again'));

  test('writes what the table projection writes for the same records, batch after batch, and moves the checkpoint past them', async () => {
    const folded = await setUp();
    const whole = await setUp();
    const history = (c: EntityConfig) => [
      [event(c, 'create', 'a', 1, doc('a', 'A1')), event(c, 'create', 'b', 1, doc('b', 'B1')), event(c, 'update', 'a', 2, doc('a', 'A2'))],
      [event(c, 'create', 'b', 1, doc('b', 'B1 again')), event(c, 'delete', 'b', 2, null), event(c, 'update', 'c', 4, doc('c', 'C4'))],
      [event(c, 'update', 'b', 3, doc('b', 'B3')), event(c, 'update', 'a', 3, doc('a', 'A3'))],
    ];
    const foldedHistory = history(folded.config);
    const end = BigInt(offset);
    await folded.writer.begin();
    for (const records of foldedHistory) folded.writer.take(batchOf(records));
    await folded.writer.write(0, noReread);
    await whole.projection.apply(batchOf(history(whole.config).flat()));
    expect(await folded.rows()).toEqual(await whole.rows());
    expect(await folded.rows()).toEqual([
      { id: 'a', name: 'A3', v: 3 },
      { id: 'b', name: 'B3', v: 3 },
      { id: 'c', name: 'C4', v: 4 },
    ]);
    expect((await checkpointsOf(sql, folded.projector, TOPIC)).get(0)).toBe(end);
  });

  test('leaves out the records below the shadow’s checkpoint, and the next run begins where the last one ended', async () => {
    const { config, projector, writer, rows } = await setUp();
    const first = [event(config, 'create', 'a', 1, doc('a', 'A1')), event(config, 'create', 'b', 1, doc('b', 'B1'))];
    await writeCheckpoints(sql, projector, TOPIC, new Map([[0, BigInt(first[1]!.offset)]]));
    await writer.begin();
    writer.take(batchOf(first));
    await writer.write(0, noReread);
    expect(await rows()).toEqual([{ id: 'b', name: 'B1', v: 1 }]);
    const second = [event(config, 'update', 'b', 2, doc('b', 'B2'))];
    writer.take(batchOf(second));
    await writer.write(0, noReread);
    expect(await rows()).toEqual([{ id: 'b', name: 'B2', v: 2 }]);
    expect((await checkpointsOf(sql, projector, TOPIC)).get(0)).toBe(BigInt(second[0]!.offset) + 1n);
  });

  test('a record whose newest event cannot be projected has its run read again and folded event by event, without that event', async () => {
    const { config, writer, rows } = await setUp();
    const records = [
      event(config, 'create', 'a', 1, doc('a', 'A1')),
      event(config, 'create', 'z', 1, doc('z', 'Z1')),
      event(config, 'update', 'a', 2, doc('a', 'A2')),
      event(config, 'update', 'a', 3, '[1, 2]'),
    ];
    const reads: [number, bigint, bigint][] = [];
    await writer.begin();
    writer.take(batchOf(records));
    await writer.write(0, async (partition, from, end) => {
      reads.push([partition, from, end]);
      return records.filter((r) => BigInt(r.offset) >= from && BigInt(r.offset) < end);
    });
    expect(reads).toEqual([[0, 0n, BigInt(records[3]!.offset) + 1n]]);
    expect(await rows()).toEqual([
      { id: 'a', name: 'A2', v: 2 },
      { id: 'z', name: 'Z1', v: 1 },
    ]);
  });

  test('events of another entity sharing the topic are passed over and count towards the checkpoint', async () => {
    const { config, projector, writer, rows } = await setUp();
    const other = new InMemoryEntityConfigSource().put(accountConfig(uniqueName('other')));
    const records = [event(config, 'create', 'a', 1, doc('a', 'A1')), event(other, 'create', 'x', 1, doc('x', 'X1'))];
    await writer.begin();
    writer.take(batchOf(records));
    await writer.write(0, noReread);
    expect(await rows()).toEqual([{ id: 'a', name: 'A1', v: 1 }]);
    expect((await checkpointsOf(sql, projector, TOPIC)).get(0)).toBe(BigInt(records[1]!.offset) + 1n);
  });

  test('a checkpoint another writer moved after the run began fails the write with DB_CONFLICT, writing nothing', async () => {
    const { config, projector, writer, rows } = await setUp();
    await writer.begin();
    writer.take(batchOf([event(config, 'create', 'a', 1, doc('a', 'A1'))]));
    await writeCheckpoints(sql, projector, TOPIC, new Map([[0, 1n]]));
    await expect(writer.write(0, noReread)).rejects.toMatchObject({ code: 'DB_CONFLICT' });
    expect(await rows()).toEqual([]);
    expect((await checkpointsOf(sql, projector, TOPIC)).get(0)).toBe(1n);
  });
});
