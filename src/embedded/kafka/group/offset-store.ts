import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../logger';
import { crc32c } from '../protocol/crc32c';
import type { FsyncPolicy } from '../storage/log-manager';
import { fdatasync, fsyncDir, writeAllSync, writeFileDurable } from '../storage/fs-util';

export interface CommittedOffset {
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  commitTimestamp: number;
}

export interface OffsetCommitEntry extends CommittedOffset {
  topic: string;
  partition: number;
}

/** One line of the offsets journal: a commit of one group, a deleted topic, a deleted group, or offsets a group gave up. */
type JournalRecord =
  | { c: string; ts: number; e: [topic: string, partition: number, offset: number, epoch: number, metadata: string | null][] }
  | { dt: string }
  | { dg: string }
  | { do: string; p: [topic: string, partition: number][] };

const FILE = 'offsets.journal';
/** How long a line written without an fsync of its own waits for one at most. */
const LAZY_SYNC_MS = 1000;

/**
 * Committed offsets of consumer groups, durable. An append-only journal of lines `<crc32c hex> <json>\n`,
 * one line per OffsetCommit request (so a commit is all or nothing); a torn or corrupt tail is cut at
 * open, and the journal is rewritten compactly at open when most of it is superseded. A commit is answered
 * once durable under the broker's fsync policy.
 */
export class OffsetStore {
  private readonly groups = new Map<string, Map<string, CommittedOffset>>();
  private fd: number;
  private size: number;
  private syncing: Promise<void> | null = null;
  private nextSync: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Pending fsync of lines written without one (`commit(…, false)`). */
  private lazySync: NodeJS.Timeout | undefined;

  private constructor(
    private readonly dir: string,
    private readonly fsync: FsyncPolicy,
    fsyncIntervalMs: number,
    private readonly logger: Logger,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, FILE);
    const { validBytes, lines } = this.replay(file);
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT);
    this.size = validBytes;
    if (fs.fstatSync(this.fd).size !== validBytes) {
      logger.warn({ file, validBytes }, 'offsets journal had a torn tail; truncated');
      fs.ftruncateSync(this.fd, validBytes);
    }
    const live = [...this.groups.values()].reduce((n, g) => n + g.size, 0);
    if (lines > 1000 && lines > 4 * live) this.compact();
    if (fsync === 'interval') {
      this.timer = setInterval(() => this.sync().catch((err: unknown) => logger.error({ err }, 'offsets journal fsync failed')), fsyncIntervalMs).unref();
    }
  }

  static open(dir: string, fsync: FsyncPolicy, fsyncIntervalMs: number, logger: Logger): OffsetStore {
    return new OffsetStore(dir, fsync, fsyncIntervalMs, logger);
  }

  private replay(file: string): { validBytes: number; lines: number } {
    if (!fs.existsSync(file)) return { validBytes: 0, lines: 0 };
    const data = fs.readFileSync(file);
    let at = 0;
    let lines = 0;
    while (at < data.length) {
      const nl = data.indexOf(0x0a, at);
      if (nl < 0 || nl - at < 10 || data[at + 8] !== 0x20) break;
      const crc = parseInt(data.subarray(at, at + 8).toString('latin1'), 16);
      if (crc !== crc32c(data, at + 9, nl)) break;
      let record: JournalRecord;
      try {
        record = JSON.parse(data.subarray(at + 9, nl).toString('utf8')) as JournalRecord;
      } catch {
        break;
      }
      this.apply(record);
      lines++;
      at = nl + 1;
    }
    return { validBytes: at, lines };
  }

  private apply(record: JournalRecord): void {
    if ('dt' in record) {
      for (const offsets of this.groups.values()) for (const key of [...offsets.keys()]) if (key.startsWith(`${record.dt}\0`)) offsets.delete(key);
      return;
    }
    if ('dg' in record) {
      this.groups.delete(record.dg);
      return;
    }
    if ('do' in record) {
      const offsets = this.groups.get(record.do);
      for (const [topic, partition] of record.p) offsets?.delete(`${topic}\0${partition}`);
      if (offsets?.size === 0) this.groups.delete(record.do);
      return;
    }
    let offsets = this.groups.get(record.c);
    if (!offsets) this.groups.set(record.c, (offsets = new Map()));
    for (const [topic, partition, offset, leaderEpoch, metadata] of record.e) {
      offsets.set(`${topic}\0${partition}`, { offset, leaderEpoch, metadata, commitTimestamp: record.ts });
    }
  }

  private static line(record: JournalRecord): Buffer {
    const json = Buffer.from(JSON.stringify(record), 'utf8');
    const head = Buffer.from(`${crc32c(json).toString(16).padStart(8, '0')} `, 'latin1');
    return Buffer.concat([head, json, Buffer.from('\n')]);
  }

  private compact(): void {
    const lines: Buffer[] = [];
    for (const [group, offsets] of this.groups) {
      const e = [...offsets].map(([key, o]) => {
        const sep = key.lastIndexOf('\0');
        return [key.slice(0, sep), Number(key.slice(sep + 1)), o.offset, o.leaderEpoch, o.metadata] as [string, number, number, number, string | null];
      });
      lines.push(OffsetStore.line({ c: group, ts: Date.now(), e }));
    }
    const data = Buffer.concat(lines);
    fs.closeSync(this.fd);
    const file = path.join(this.dir, FILE);
    writeFileDurable(file, data, this.dir);
    this.fd = fs.openSync(file, fs.constants.O_RDWR);
    this.size = data.length;
  }

  private async write(record: JournalRecord, durable: boolean): Promise<void> {
    const line = OffsetStore.line(record);
    writeAllSync(this.fd, line, this.size);
    this.size += line.length;
    this.apply(record);
    if (this.fsync !== 'always') return;
    if (durable) await this.sync();
    else
      this.lazySync ??= setTimeout(() => {
        this.lazySync = undefined;
        this.sync().catch((err: unknown) => this.logger.error({ err }, 'offsets journal fsync failed'));
      }, LAZY_SYNC_MS).unref();
  }

  /** fsync covering every write made before the call; concurrent callers share one. */
  sync(): Promise<void> {
    if (!this.syncing) {
      this.syncing = fdatasync(this.fd).finally(() => (this.syncing = null));
      return this.syncing;
    }
    if (!this.nextSync) {
      this.nextSync = this.syncing.then(() => {
        this.nextSync = null;
        return this.sync();
      });
    }
    return this.nextSync;
  }

  /**
   * Journals a group's offsets. `durable` (the default) resolves once they are fsynced under the `always` policy,
   * as a Kafka client's OffsetCommit is answered. Without it the line is written (so it survives the process), and
   * the next durable commit's fsync, or one at most LAZY_SYNC_MS later, or the close makes it durable: for the
   * service's own consumers, whose effects are idempotent and which never waited on that fsync (a power loss rolls
   * their offsets back by up to that second, and those batches are delivered again).
   */
  commit(group: string, entries: OffsetCommitEntry[], durable = true): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return this.write({ c: group, ts: Date.now(), e: entries.map((x) => [x.topic, x.partition, x.offset, x.leaderEpoch, x.metadata]) }, durable);
  }

  get(group: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.groups.get(group)?.get(`${topic}\0${partition}`);
  }

  /** Every committed offset of a group, by topic. */
  all(group: string): Map<string, Map<number, CommittedOffset>> {
    const byTopic = new Map<string, Map<number, CommittedOffset>>();
    for (const [key, o] of this.groups.get(group) ?? []) {
      const sep = key.lastIndexOf('\0');
      const topic = key.slice(0, sep);
      let parts = byTopic.get(topic);
      if (!parts) byTopic.set(topic, (parts = new Map()));
      parts.set(Number(key.slice(sep + 1)), o);
    }
    return byTopic;
  }

  hasGroup(group: string): boolean {
    return (this.groups.get(group)?.size ?? 0) > 0;
  }

  /** Groups with at least one committed offset. */
  groupIds(): string[] {
    return [...this.groups.keys()].filter((g) => this.hasGroup(g));
  }

  async deleteTopic(topic: string): Promise<void> {
    await this.write({ dt: topic }, true);
  }

  /** Forgets every offset of a group (DeleteGroups); durable when it resolves. */
  async deleteGroup(group: string): Promise<void> {
    await this.write({ dg: group }, true);
  }

  /** Forgets some of a group's offsets (OffsetDelete); durable when it resolves. */
  async deleteOffsets(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<void> {
    if (partitions.length > 0) await this.write({ do: group, p: partitions.map((p) => [p.topic, p.partition]) }, true);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.lazySync);
    await this.syncing;
    await this.nextSync;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    fsyncDir(this.dir);
  }
}
