/**
 * The write service on the real write path of one machine: the in-process write log on the embedded broker and
 * registry, the delta processor deciding against the in-memory record state store, and the outcome waiter
 * answering the caller. Asserts what a caller gets: accepted results with their log position, refusals with
 * their stage, field and rule, idempotent retries, sealed envelopes, and the typed failures.
 */
import { DELTA_SEAL_HEADER } from '../../../src/auth/delta-seal';
import { WriteService } from '../../../src/broker/write-service';
import type { DeltaEnvelope, LogRecord } from '../../../src/log';
import { PIPELINE_TOPICS } from '../../../src/log/topology';
import { InMemoryRecordStateStore } from '../../../src/store/record-states/in-memory-record-states';
import { ada, startInProcessWritePath, writeCommand as command, type InProcessWritePath } from '../../support/in-process-write-path';

describe('write service on the in-process write path', () => {
  let writePath: InProcessWritePath;

  beforeAll(async () => {
    writePath = await startInProcessWritePath(new InMemoryRecordStateStore());
  }, 60_000);

  afterAll(async () => {
    await writePath?.stop();
  });

  test('an accepted create answers its version, key and position on the persistence topic', async () => {
    const result = await writePath.writes.write(ada, command({ payload: { merchantId: 'm-accepted', name: 'Ada' } }));
    expect(result).toMatchObject({
      status: 'accepted',
      entity: 'merchant_account',
      key: 'm-accepted',
      version: 1,
      position: { topic: 'acme.merchant_account.events' },
    });
    const next = await writePath.writes.write(ada, command({ operation: 'update', payload: { merchantId: 'm-accepted', name: 'Ada L.' }, expectedVersion: 1 }));
    expect(next).toMatchObject({ status: 'accepted', version: 2 });
  });

  test("a refusal is thrown as the pipeline's typed error: code, stage, field, rule", async () => {
    await expect(writePath.writes.write(ada, command({ payload: { merchantId: 'm-refused', name: 'Ada', nickname: 'x' } }))).rejects.toMatchObject({
      name: 'DeltabrokerError',
      code: 'DB_VALIDATION',
      details: { stage: 'validate', field: 'payload.nickname', rule: 'unknown-field' },
    });
    await expect(writePath.writes.write(ada, command({ operation: 'update', payload: { merchantId: 'm-nobody', name: 'Ada' } }))).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { stage: 'record-key', rule: 'exists' },
    });
  });

  test('the same idempotency key answers the same outcome, and writes nothing again', async () => {
    const first = await writePath.writes.write(ada, command({ deltaId: 'idem-1', payload: { merchantId: 'm-idem', name: 'Ada' } }));
    const written = async () => (await writePath.log.topicOffsets('acme.merchant_account.events')).map((p) => p.high);
    const before = await written();
    const again = await writePath.writes.write(ada, command({ deltaId: 'idem-1', payload: { merchantId: 'm-idem', name: 'Changed' } }));
    expect(again).toMatchObject({ status: 'accepted', deltaId: 'idem-1', version: 1, position: (first as { position: unknown }).position });
    expect(await written()).toEqual(before);
    const refusal = { code: 'DB_VALIDATION', details: { stage: 'validate', rule: 'unknown-field' } };
    await expect(
      writePath.writes.write(ada, command({ deltaId: 'idem-2', payload: { merchantId: 'm-idem-2', name: 'A', nickname: 'x' } })),
    ).rejects.toMatchObject(refusal);
    await expect(writePath.writes.write(ada, command({ deltaId: 'idem-2', payload: { merchantId: 'm-idem-2', name: 'A' } }))).rejects.toMatchObject(refusal);
  });

  test("an async write answers once the delta is on the log: the caller's envelope, sealed by the service", async () => {
    const result = await writePath.writes.write(ada, command({ async: true, payload: { merchantId: 'm-async', name: 'Ada' }, expectedVersion: 0 }));
    if (result.status !== 'pending') throw new Error(`expected pending, got ${result.status}`);
    const records: LogRecord<DeltaEnvelope>[] = [];
    await writePath.log.replay<DeltaEnvelope>({
      topic: PIPELINE_TOPICS.deltas,
      from: { kind: 'offsets', offsets: [{ partition: result.position.partition, offset: result.position.offset }] },
      readerSchema: writePath.schemas.DeltaEnvelope,
      handleBatch: async (batch) => void records.push(...batch.records.filter((r) => r.value.id === result.deltaId)),
    });
    const [record] = records;
    expect(record?.value).toMatchObject({
      tenant: 'acme',
      entity: 'merchant_account',
      key: 'm-async',
      actor: { user: 'ada', roles: ['writer'] },
      expectedVersion: 0,
      origin: { datacenter: 'dc1' },
    });
    expect(writePath.seal.verify(record?.value as DeltaEnvelope, record?.headers[DELTA_SEAL_HEADER])).toBe(true);
    expect(record?.headers['request-id']).toBe('req-1');
  });

  test('bad commands are refused before anything is published', async () => {
    await expect(writePath.writes.write(ada, command({ entity: 'invoice' }))).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { stage: 'entity-config', rule: 'configured-entity' },
    });
    await expect(writePath.writes.write({ ...ada, tenant: 'globex' }, command())).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { field: 'dispatch.entity' },
    });
    await expect(writePath.writes.write(ada, command({ payload: { name: 'no key' } }))).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload.merchantId', rule: 'required' },
    });
    await expect(writePath.writes.write(ada, command({ payload: { merchantId: 'm-inf', name: 'A', mcc: Infinity } }))).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload.mcc', rule: 'finite-number' },
    });
  });

  test('no verdict in time is DB_TIMEOUT naming the delta; a log that does not acknowledge is DB_DEPENDENCY_UNAVAILABLE', async () => {
    const impatient = new WriteService({ ...writePath.options, timeoutMs: 1 });
    await expect(impatient.write(ada, command({ deltaId: 'slow-1' }))).rejects.toMatchObject({ code: 'DB_TIMEOUT', details: { deltaId: 'slow-1' } });
    const closed = await writePath.openLog();
    await closed.close();
    await expect(new WriteService({ ...writePath.options, log: closed }).write(ada, command())).rejects.toMatchObject({
      code: 'DB_DEPENDENCY_UNAVAILABLE',
      retriable: true,
      details: { stage: 'publish' },
    });
  });
});
