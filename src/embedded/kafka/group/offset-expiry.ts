import type { Logger } from '../../../logger';
import type { GroupCoordinator } from './coordinator';
import type { OffsetStore } from './offset-store';

export interface OffsetRetention {
  /** Kafka's `offsets.retention.minutes`, in milliseconds. */
  readonly retentionMs: number;
  /** Kafka's `offsets.retention.check.interval.ms`. */
  readonly checkIntervalMs: number;
  /** Groups whose offsets never expire (the service's own, whose members come back whenever it runs). */
  readonly retained: (groupId: string) => boolean;
}

export interface PartitionRef {
  topic: string;
  partition: number;
}

/**
 * The offsets of a group without members that have expired at `now`, as Kafka ≥ 2.1 decides (KIP-211): all of them
 * once `retentionMs` passed since the group became empty; for a group never seen with members (a standalone
 * consumer committing with generation -1, or offsets journaled before the broker kept group states), each one once
 * `retentionMs` passed since its own last commit.
 */
export function expiredOffsets(store: OffsetStore, groupId: string, retentionMs: number, now: number): PartitionRef[] {
  const emptiedAt = store.emptiedSince(groupId);
  const expired: PartitionRef[] = [];
  for (const [topic, partitions] of store.all(groupId)) {
    for (const [partition, committed] of partitions) {
      if (now - (emptiedAt ?? committed.commitTimestamp) >= retentionMs) expired.push({ topic, partition });
    }
  }
  return expired;
}

/**
 * Expires committed offsets of groups without members, and forgets groups left empty with no offsets (Kafka's
 * group metadata cleanup): after that OffsetFetch answers -1 for them, and ListGroups and DescribeGroups no longer
 * show the group. A group with members keeps its offsets, however old. Runs every `checkIntervalMs`.
 */
export class OffsetExpiry {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;

  constructor(
    private readonly groups: GroupCoordinator,
    private readonly retention: OffsetRetention,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.run(), retention.checkIntervalMs).unref();
  }

  /** One pass over every group; a call while one runs shares it. */
  run(now = Date.now()): Promise<void> {
    this.running ??= this.expire(now)
      .catch((err: unknown) => this.logger.error({ err }, 'expiring committed offsets failed'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async expire(now: number): Promise<void> {
    const store = this.groups.offsetStore;
    for (const groupId of new Set([...store.groupIds(), ...this.groups.liveGroupIds()])) {
      if (this.retention.retained(groupId)) continue;
      const live = this.groups.peek(groupId);
      if (live && (live.members.size > 0 || live.state !== 'Empty')) continue;
      // Each decision and the state change it makes happen without yielding, so a member joining meanwhile is
      // either seen above or joins a group whose offsets are already gone; only the fsync is awaited.
      const expired = expiredOffsets(store, groupId, this.retention.retentionMs, now);
      const total = [...store.all(groupId).values()].reduce((n, partitions) => n + partitions.size, 0);
      if (total > 0 && expired.length < total) {
        if (expired.length === 0) continue;
        this.logger.info({ group: groupId, partitions: expired.length }, 'committed offsets expired');
        await store.deleteOffsets(groupId, expired);
        continue;
      }
      // Every offset expired, or the group has none: an empty group without offsets is gone.
      if (total > 0) this.logger.info({ group: groupId, partitions: total }, 'committed offsets expired; group deleted');
      this.groups.forget(groupId);
      if (total > 0 || store.emptiedSince(groupId) !== undefined) await store.deleteGroup(groupId);
    }
  }

  /** Stops the checks; resolves once a pass under way has finished (its writes go before the journal closes). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
