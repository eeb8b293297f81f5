import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../logger';
import { JournalCompaction, journalLine, replayJournal, rewriteJournal } from '../storage/checked-journal';
import type { FsyncPolicy } from '../storage/log-manager';
import { fdatasync, fsyncDir, writeAllSync } from '../storage/fs-util';

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

type CommitEntries = [topic: string, partition: number, offset: number, epoch: number, metadata: string | null][];

/**
 * One line of the offsets journal: a commit of one group, a deleted topic, a deleted group, offsets a group gave up,
 * a group that became empty (its last member left; its offsets expire from then) or one that has members again.
 */
type JournalRecord =
  | { c: string; ts: number; e: CommitEntries }
  | { dt: string }
  | { dg: string }
  | { do: string; p: [topic: string, partition: number][] }
  | { ge: string; ts: number }
  | { gm: string };

const FILE = 'offsets.journal';
/** How long a line written without an fsync of its own waits for one at most. */
const LAZY_SYNC_MS = 1000;

/**
 * Committed offsets of consumer groups, durable. An append-only journal of lines `<crc32c hex> <json>\n`,
 * one line per OffsetCommit request (so a commit is all or nothing); a torn or corrupt tail is cut at
 * open, and the journal is rewritten with the live state whenever most of it is superseded, at open and while
 * the broker runs (as Kafka's log cleaner keeps `__consumer_offsets` compacted), so neither its size nor the
 * replay at the next open grows with the commits a long run makes. A commit is answered
 * once durable under the broker's fsync policy. The journal also keeps when each group became empty, which
 * is what its offsets' expiry counts from (offset-expiry.ts), so a restart does not move it.
 */
export class OffsetStore {
  private readonly groups = new Map<string, Map<string, CommittedOffset>>();
  /** When each group without members became empty. */
  private readonly emptiedAt = new Map<string, number>();
  /** Groups that had members when last journaled. */
  private readonly withMembers = new Set<string>();
  private fd: number;
  private size: number;
  private syncing: Promise<void> | null = null;
  private nextSync: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Pending fsync of lines written without one (`commit(…, false)`). */
  private lazySync: NodeJS.Timeout | undefined;
  /** Lines in the file. */
  private lines = 0;
  private readonly compaction = new JournalCompaction();

  private constructor(
    private readonly dir: string,
    private readonly fsync: FsyncPolicy,
    fsyncIntervalMs: number,
    private readonly logger: Logger,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, FILE);
    const { validBytes, lines } = this.replay(file);
    this.lines = lines;
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT);
    this.size = validBytes;
    if (fs.fstatSync(this.fd).size !== validBytes) {
      logger.warn({ file, validBytes }, 'offsets journal had a torn tail; truncated');
      fs.ftruncateSync(this.fd, validBytes);
    }
    // Groups that had members when the broker stopped lost them with it: they became empty now, as a Kafka
    // group whose members do not come back after a restart becomes empty once their sessions time out.
    for (const group of [...this.withMembers]) {
      if (this.hasGroup(group)) this.append({ ge: group, ts: Date.now() });
      else this.withMembers.delete(group);
    }
    if (this.size > validBytes) this.syncSoon();
    this.compactIfSuperseded();
    if (fsync === 'interval') {
      this.timer = setInterval(() => this.sync().catch((err: unknown) => logger.error({ err }, 'offsets journal fsync failed')), fsyncIntervalMs).unref();
    }
  }

  static open(dir: string, fsync: FsyncPolicy, fsyncIntervalMs: number, logger: Logger): OffsetStore {
    return new OffsetStore(dir, fsync, fsyncIntervalMs, logger);
  }

  private replay(file: string): { validBytes: number; lines: number } {
    return replayJournal<JournalRecord>(file, (record) => this.apply(record));
  }

  private apply(record: JournalRecord): void {
    if ('dt' in record) {
      for (const offsets of this.groups.values()) for (const key of [...offsets.keys()]) if (key.startsWith(`${record.dt}\0`)) offsets.delete(key);
      return;
    }
    if ('dg' in record) {
      this.groups.delete(record.dg);
      this.emptiedAt.delete(record.dg);
      this.withMembers.delete(record.dg);
      return;
    }
    if ('ge' in record) {
      this.withMembers.delete(record.ge);
      this.emptiedAt.set(record.ge, record.ts);
      return;
    }
    if ('gm' in record) {
      this.emptiedAt.delete(record.gm);
      this.withMembers.add(record.gm);
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
    return journalLine(record);
  }

  /**
   * Compacts once most lines are superseded (JournalCompaction). Not while an fsync is under way: compaction replaces
   * the file (and its descriptor) that fsync works on; the next line written after it tries again.
   */
  private compactIfSuperseded(): void {
    if (this.syncing !== null) return;
    if (this.compaction.due(this.lines, () => [...this.groups.values()].reduce((n, g) => n + g.size, 0))) this.compact();
  }

  /** One commit line per group and commit time (offsets without members expire counting from it), then its state. */
  private compact(): void {
    const lines: Buffer[] = [];
    for (const [group, offsets] of this.groups) {
      const byTime = new Map<number, CommitEntries>();
      for (const [key, o] of offsets) {
        const sep = key.lastIndexOf('\0');
        const entries = byTime.get(o.commitTimestamp) ?? [];
        entries.push([key.slice(0, sep), Number(key.slice(sep + 1)), o.offset, o.leaderEpoch, o.metadata]);
        byTime.set(o.commitTimestamp, entries);
      }
      for (const [ts, e] of byTime) lines.push(OffsetStore.line({ c: group, ts, e }));
      const emptiedAt = this.emptiedAt.get(group);
      if (emptiedAt !== undefined) lines.push(OffsetStore.line({ ge: group, ts: emptiedAt }));
      if (this.withMembers.has(group)) lines.push(OffsetStore.line({ gm: group }));
    }
    ({ fd: this.fd, size: this.size } = rewriteJournal(path.join(this.dir, FILE), this.dir, this.fd, lines));
    this.lines = lines.length;
  }

  private async write(record: JournalRecord, durable: boolean): Promise<void> {
    this.append(record);
    if (this.fsync !== 'always') return;
    if (durable) await this.sync();
    else this.syncSoon();
  }

  /** Writes a line and applies it at once (synchronously: callers rely on the state changing before they yield). */
  private append(record: JournalRecord): void {
    const line = OffsetStore.line(record);
    writeAllSync(this.fd, line, this.size);
    this.size += line.length;
    this.lines++;
    this.apply(record);
    this.compactIfSuperseded();
  }

  private syncSoon(): void {
    if (this.fsync !== 'always') return;
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

  /**
   * Notes that a group's last member left (or timed out) at `at`. Written without an fsync of its own, like the
   * service's commits: a power loss within the second may bring back the earlier state, never a lost offset.
   */
  groupEmptied(group: string, at = Date.now()): void {
    this.append({ ge: group, ts: at });
    this.syncSoon();
  }

  /** Notes that a group has members again (its offsets do not expire while it has). */
  groupHasMembers(group: string): void {
    if (this.withMembers.has(group)) return;
    this.append({ gm: group });
    this.syncSoon();
  }

  /** When the group became empty, if it did since it last had members; undefined for a group never seen with any. */
  emptiedSince(group: string): number | undefined {
    return this.emptiedAt.get(group);
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
