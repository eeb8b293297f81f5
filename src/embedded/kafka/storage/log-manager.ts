import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../logger';
import { ErrorCode } from '../protocol/errors';
import { fsyncDir, writeFileDurable } from './fs-util';
import { compactionConfig } from './compaction-config';
import { type CompactedPartition, LogCleaner } from './log-cleaner';
import { type LogConfig, applyTopicConfigs } from './log-config';
import { PartitionLog } from './partition-log';

/**
 * When appended bytes are fsynced:
 * - `always` (default): before a produce with acks=1/-1 is answered; concurrent produces share one fsync
 *   per partition (group commit). Nothing acknowledged is lost even if the machine loses power.
 * - `interval`: every `fsyncIntervalMs`, and on segment roll and shutdown. Acknowledged records survive a
 *   crash of the process; a power loss may take the last interval.
 * - `never`: on segment roll and shutdown only; the OS writes back when it likes.
 */
export type FsyncPolicy = 'always' | 'interval' | 'never';

export interface Topic {
  name: string;
  partitions: PartitionLog[];
  /** Configs given at creation (string values as Kafka clients send them). */
  configs: Record<string, string>;
  config: LogConfig;
}

export interface LogManagerOptions {
  dir: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  retentionCheckIntervalMs: number;
  defaults: LogConfig;
  logger: Logger;
}

export class TopicError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'TopicError';
  }
}

const MAX_PARTITIONS = 10_000;
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
export const isValidTopicName = (name: string): boolean => TOPIC_NAME.test(name) && name !== '.' && name !== '..';

interface TopicFile {
  name: string;
  partitions: number;
  configs: Record<string, string>;
}

interface DurableWaiter {
  seq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class LogManager {
  private readonly topicMap = new Map<string, Topic>();
  private readonly topicsDir: string;
  private readonly dirty = new Set<PartitionLog>();
  private writeSeq = 0;
  private durableSeq = 0;
  private waiters: DurableWaiter[] = [];
  private flushing = false;
  private flushScheduled = false;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Partitions of deleted topics, whose files close after a grace period (or at shutdown). */
  private readonly retired = new Set<PartitionLog>();
  private closed = false;
  /** Compacts topics whose cleanup.policy includes compact, in the background (log-cleaner.ts). */
  readonly cleaner: LogCleaner;

  private constructor(private readonly opts: LogManagerOptions) {
    this.topicsDir = path.join(opts.dir, 'topics');
    this.cleaner = new LogCleaner(() => this.compactedPartitions(), opts.logger);
  }

  private compactedPartitions(): CompactedPartition[] {
    return [...this.topicMap.values()].flatMap((t) => {
      const config = compactionConfig(t.configs);
      return config ? t.partitions.map((log) => ({ log, config })) : [];
    });
  }

  static open(opts: LogManagerOptions): LogManager {
    const m = new LogManager(opts);
    fs.mkdirSync(m.topicsDir, { recursive: true });
    for (const entry of fs.readdirSync(m.topicsDir)) {
      const dir = path.join(m.topicsDir, entry);
      if (entry.endsWith('.deleted')) {
        fs.rmSync(dir, { recursive: true, force: true });
        continue;
      }
      const metaFile = path.join(dir, 'topic.json');
      if (!fs.existsSync(metaFile)) continue;
      const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as TopicFile;
      m.load(meta);
    }
    if (opts.fsync === 'interval') m.timers.push(setInterval(() => m.syncAll(), opts.fsyncIntervalMs).unref());
    m.timers.push(setInterval(() => m.enforceRetention(), opts.retentionCheckIntervalMs).unref());
    m.timers.push(setInterval(() => void m.cleaner.run(), opts.retentionCheckIntervalMs).unref());
    return m;
  }

  private load(meta: TopicFile): Topic {
    const { config } = applyTopicConfigs(this.opts.defaults, meta.configs);
    const dir = path.join(this.topicsDir, meta.name);
    const partitions = Array.from({ length: meta.partitions }, (_, p) => PartitionLog.open(path.join(dir, String(p)), meta.name, p, config));
    const topic: Topic = { name: meta.name, partitions, configs: meta.configs, config };
    this.topicMap.set(meta.name, topic);
    return topic;
  }

  topics(): Topic[] {
    return [...this.topicMap.values()];
  }

  topic(name: string): Topic | undefined {
    return this.topicMap.get(name);
  }

  partition(topic: string, partition: number): PartitionLog | undefined {
    return this.topicMap.get(topic)?.partitions[partition];
  }

  /** Checks a would-be topic; returns the Kafka error code that refuses it, or NONE. */
  validateNewTopic(name: string, partitions: number, configs: Record<string, string>): { errorCode: number; message?: string } {
    if (!isValidTopicName(name)) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, message: `invalid topic name '${name}'` };
    if (this.topicMap.has(name)) return { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, message: `topic '${name}' already exists` };
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
      return { errorCode: ErrorCode.INVALID_PARTITIONS, message: `partitions must be between 1 and ${MAX_PARTITIONS}` };
    }
    const { invalid } = applyTopicConfigs(this.opts.defaults, configs);
    if (invalid) return { errorCode: ErrorCode.INVALID_CONFIG, message: `invalid value for ${invalid}` };
    return { errorCode: ErrorCode.NONE };
  }

  createTopic(name: string, partitions: number, configs: Record<string, string> = {}): Topic {
    const check = this.validateNewTopic(name, partitions, configs);
    if (check.errorCode !== ErrorCode.NONE) throw new TopicError(check.errorCode, check.message ?? 'invalid topic');
    const dir = path.join(this.topicsDir, name);
    fs.mkdirSync(dir, { recursive: true });
    const topic = this.load({ name, partitions, configs });
    this.persist(topic);
    fsyncDir(this.topicsDir);
    this.opts.logger.info({ topic: name, partitions }, 'topic created');
    return topic;
  }

  /** Checks a partition increase (CreatePartitions); returns the Kafka error code that refuses it, or NONE. */
  validatePartitionIncrease(name: string, count: number): { errorCode: number; message?: string } {
    const topic = this.topicMap.get(name);
    if (!topic) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, message: `no topic '${name}'` };
    const now = topic.partitions.length;
    if (!Number.isInteger(count) || count <= now) {
      return { errorCode: ErrorCode.INVALID_PARTITIONS, message: `topic '${name}' has ${now} partitions; the new count must be larger` };
    }
    if (count > MAX_PARTITIONS) return { errorCode: ErrorCode.INVALID_PARTITIONS, message: `partitions must be at most ${MAX_PARTITIONS}` };
    return { errorCode: ErrorCode.NONE };
  }

  /** Adds partitions to a topic (existing ones keep their records and offsets). */
  addPartitions(name: string, count: number): Topic {
    const check = this.validatePartitionIncrease(name, count);
    if (check.errorCode !== ErrorCode.NONE) throw new TopicError(check.errorCode, check.message ?? 'invalid partition count');
    const topic = this.topicMap.get(name)!;
    const dir = path.join(this.topicsDir, name);
    for (let p = topic.partitions.length; p < count; p++) topic.partitions.push(PartitionLog.open(path.join(dir, String(p)), name, p, topic.config));
    this.persist(topic);
    this.opts.logger.info({ topic: name, partitions: count }, 'partitions added');
    return topic;
  }

  /** Replaces a topic's explicit configs (AlterConfigs semantics): the Kafka error code that refuses them, or NONE. */
  setTopicConfigs(name: string, configs: Record<string, string>, validateOnly = false): { errorCode: number; message?: string } {
    const topic = this.topicMap.get(name);
    if (!topic) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, message: `no topic '${name}'` };
    const { config, invalid } = applyTopicConfigs(this.opts.defaults, configs);
    if (invalid) return { errorCode: ErrorCode.INVALID_CONFIG, message: `invalid value for ${invalid}` };
    if (validateOnly) return { errorCode: ErrorCode.NONE };
    topic.configs = { ...configs };
    topic.config = config;
    for (const p of topic.partitions) p.config = config;
    this.persist(topic);
    this.opts.logger.info({ topic: name, configs }, 'topic configs changed');
    return { errorCode: ErrorCode.NONE };
  }

  private persist(topic: Topic): void {
    const dir = path.join(this.topicsDir, topic.name);
    const meta: TopicFile = { name: topic.name, partitions: topic.partitions.length, configs: topic.configs };
    writeFileDurable(path.join(dir, 'topic.json'), JSON.stringify(meta), dir);
  }

  /** Removes a topic: renamed away at once, files deleted in the background. */
  deleteTopic(name: string): boolean {
    const topic = this.topicMap.get(name);
    if (!topic) return false;
    this.topicMap.delete(name);
    for (const p of topic.partitions) {
      this.dirty.delete(p);
      p.retire();
      this.retired.add(p);
    }
    const graveyard = path.join(this.topicsDir, `${name}-${randomUUID()}.deleted`);
    fs.renameSync(path.join(this.topicsDir, name), graveyard);
    fsyncDir(this.topicsDir);
    fs.rm(graveyard, { recursive: true, force: true }, () => undefined);
    this.opts.logger.info({ topic: name }, 'topic deleted');
    return true;
  }

  /** To be called after appending to a partition: publishes or schedules the high watermark move. */
  appended(log: PartitionLog): void {
    if (this.opts.fsync !== 'always') {
      log.advanceHighWatermark(log.logEndOffset);
      if (log.rolledSinceSync) log.sync().catch((err: unknown) => this.opts.logger.error({ err, topic: log.topic }, 'fsync of a rolled segment failed'));
      return;
    }
    this.dirty.add(log);
    this.writeSeq++;
    this.scheduleFlush();
  }

  /** Resolves once every append made before the call is durable under the policy. */
  waitDurable(): Promise<void> {
    if (this.opts.fsync !== 'always' || this.durableSeq >= this.writeSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq: this.writeSeq, resolve, reject }));
  }

  private scheduleFlush(): void {
    if (this.flushing || this.flushScheduled || this.closed) return;
    this.flushScheduled = true;
    setImmediate(() => void this.flush());
  }

  /** One group commit: fsync every dirty partition, then move their high watermarks. */
  private async flush(): Promise<void> {
    this.flushScheduled = false;
    this.flushing = true;
    const seq = this.writeSeq;
    const logs = [...this.dirty];
    this.dirty.clear();
    const ends = logs.map((l) => l.logEndOffset);
    logs.forEach((l, i) => l.beginCommit(ends[i]!));
    try {
      await Promise.all(logs.map((l) => l.sync()));
      logs.forEach((l, i) => l.advanceHighWatermark(ends[i]!));
      this.durableSeq = seq;
      this.settle(
        (w) => w.seq <= seq,
        (w) => w.resolve(),
      );
    } catch (err) {
      // The produces waiting on this flush fail (KAFKA_STORAGE_ERROR); their partitions stay dirty so the
      // high watermark moves once a later fsync succeeds.
      this.opts.logger.error({ err }, 'fsync of the partition log failed');
      for (const l of logs) if (this.topicMap.get(l.topic)?.partitions[l.partition] === l) this.dirty.add(l);
      this.settle(
        (w) => w.seq <= seq,
        (w) => w.reject(err),
      );
    } finally {
      this.flushing = false;
      if (this.dirty.size > 0) this.scheduleFlush();
    }
  }

  private settle(match: (w: DurableWaiter) => boolean, act: (w: DurableWaiter) => void): void {
    const done = this.waiters.filter(match);
    this.waiters = this.waiters.filter((w) => !match(w));
    done.forEach(act);
  }

  /** fsyncs every partition (interval policy, shutdown). */
  async syncAll(): Promise<void> {
    const logs = this.topics().flatMap((t) => t.partitions);
    try {
      await Promise.all(logs.map((l) => l.sync()));
    } catch (err) {
      this.opts.logger.error({ err }, 'periodic fsync failed');
    }
  }

  enforceRetention(now = Date.now()): void {
    for (const t of this.topicMap.values()) {
      for (const p of t.partitions) {
        try {
          const n = p.enforceRetention(now);
          if (n > 0) this.opts.logger.debug({ topic: t.name, partition: p.partition, segments: n }, 'retention deleted segments');
        } catch (err) {
          this.opts.logger.error({ err, topic: t.name, partition: p.partition }, 'retention failed');
        }
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.cleaner.stop();
    while (this.flushing || this.flushScheduled) await new Promise((r) => setTimeout(r, 1));
    await this.syncAll();
    for (const t of this.topicMap.values()) for (const p of t.partitions) p.close();
    for (const p of this.retired) p.close();
    this.topicMap.clear();
    this.retired.clear();
    this.settle(
      () => true,
      (w) => w.reject(new Error('broker stopped')),
    );
  }
}
