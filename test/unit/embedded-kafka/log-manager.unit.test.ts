import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import { encodeRecordBatch } from '../../../src/embedded/kafka/protocol/record-batch';
import { DEFAULT_LOG_CONFIG } from '../../../src/embedded/kafka/storage/log-config';
import { type FsyncPolicy, LogManager, type TopicError } from '../../../src/embedded/kafka/storage/log-manager';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-logs-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const open = (fsync: FsyncPolicy = 'always'): LogManager =>
  LogManager.open({ dir, fsync, fsyncIntervalMs: 50, retentionCheckIntervalMs: 60_000, defaults: DEFAULT_LOG_CONFIG, logger: silentLogger() });

describe('log manager', () => {
  test('fsync=always: the high watermark moves only once the append is fsynced; concurrent appends share a flush', async () => {
    const m = open('always');
    const t = m.createTopic('t', 2);
    const [p0, p1] = t.partitions as [(typeof t.partitions)[0], (typeof t.partitions)[0]];
    p0.append([encodeRecordBatch({ records: [{ value: 'a' }] })]);
    m.appended(p0);
    p1.append([encodeRecordBatch({ records: [{ value: 'b' }] })]);
    m.appended(p1);
    expect([p0.highWatermark, p1.highWatermark]).toEqual([0, 0]);
    const syncs = jest.spyOn(p0, 'sync');
    await Promise.all([m.waitDurable(), m.waitDurable()]);
    expect([p0.highWatermark, p1.highWatermark]).toEqual([1, 1]);
    expect(syncs).toHaveBeenCalledTimes(1);
    await m.close();
  });

  test('fsync=interval and never publish at once', async () => {
    for (const policy of ['interval', 'never'] as const) {
      const m = open(policy);
      const p = m.createTopic(`t-${policy}`, 1).partitions[0]!;
      p.append([encodeRecordBatch({ records: [{ value: 'a' }] })]);
      m.appended(p);
      expect(p.highWatermark).toBe(1);
      await m.waitDurable();
      await m.close();
    }
  });

  test('topics and their configs survive reopening; deleted topics do not', async () => {
    let m = open();
    m.createTopic('keep', 3, { 'retention.ms': '1234', 'x.unknown': 'kept' });
    m.createTopic('drop', 1);
    expect(m.deleteTopic('drop')).toBe(true);
    expect(m.deleteTopic('drop')).toBe(false);
    await m.close();
    m = open();
    expect(m.topics().map((t) => t.name)).toEqual(['keep']);
    expect(m.topic('keep')!.partitions).toHaveLength(3);
    expect(m.topic('keep')!.config.retentionMs).toBe(1234);
    expect(m.topic('keep')!.configs).toEqual({ 'retention.ms': '1234', 'x.unknown': 'kept' });
    await m.close();
  });

  test('refuses bad names, duplicates, partition counts and config values', async () => {
    const m = open();
    m.createTopic('ok', 1);
    const code = (f: () => unknown): number => {
      try {
        f();
        return ErrorCode.NONE;
      } catch (e) {
        return (e as TopicError).errorCode;
      }
    };
    expect(code(() => m.createTopic('ok', 1))).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    expect(code(() => m.createTopic('..', 1))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(code(() => m.createTopic('a/b', 1))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(code(() => m.createTopic('x'.repeat(250), 1))).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(code(() => m.createTopic('zero', 0))).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(code(() => m.createTopic('cfg', 1, { 'retention.ms': 'soon' }))).toBe(ErrorCode.INVALID_CONFIG);
    expect(code(() => m.createTopic('pol', 1, { 'cleanup.policy': 'shred' }))).toBe(ErrorCode.INVALID_CONFIG);
    expect(code(() => m.createTopic('ts', 1, { 'message.timestamp.type': 'WallClock' }))).toBe(ErrorCode.INVALID_CONFIG);
    expect(m.createTopic('stamped', 1, { 'message.timestamp.type': 'LogAppendTime' }).config.messageTimestampType).toBe('LogAppendTime');
    // compact alone turns time retention off: the cleaner keeps the latest record of every key instead.
    expect(m.createTopic('compacted', 1, { 'cleanup.policy': 'compact' }).config.retentionMs).toBe(-1);
    expect(code(() => m.createTopic('ratio', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '2' }))).toBe(ErrorCode.INVALID_CONFIG);
    await m.close();
  });
});
