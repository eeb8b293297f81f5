/**
 * A subscription's positions in its consumer group: where a partition starts (the group's committed offset, else
 * Kafka's auto.offset.reset), and the commits after each handled batch, stored in the broker's OffsetStore where
 * every Kafka tool sees them, and only while the member's generation is current. A subscription that commits no
 * positions (`commitPositions: false`) starts every partition at the reset offset and writes nothing.
 */
import type { EmbeddedKafkaParts } from '../../embedded/kafka';
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import type { Logger } from '../../logger';
import type { GroupMember } from './group/member';

export class GroupPositions {
  /** The latest offset commit's journal write (it covers every earlier commit). */
  private lastCommit: Promise<void> = Promise.resolve();

  constructor(
    private readonly broker: Pick<EmbeddedKafkaParts, 'groups' | 'logs'>,
    private readonly groupId: string,
    private readonly member: GroupMember,
    private readonly policy: { readonly start: 'earliest' | 'latest'; readonly commits: boolean },
    private readonly log: Logger,
  ) {}

  /** Where consuming the partition begins: the group's committed offset, else the reset offset. */
  startOffset(topic: string, partition: number): number {
    const committed = this.policy.commits ? this.broker.groups.offsetStore.get(this.groupId, topic, partition) : undefined;
    if (committed && committed.offset >= 0) return committed.offset;
    const log = this.broker.logs.partition(topic, partition);
    return log ? this.resetOffset(log) : 0;
  }

  /** Where a partition without a usable committed offset starts: Kafka's auto.offset.reset. */
  resetOffset(log: PartitionLog): number {
    return this.policy.start === 'earliest' ? log.logStartOffset : log.highWatermark;
  }

  /**
   * Stores the group's offset after a handled batch; answers false, storing nothing, when the member's generation
   * is no longer current (the batch goes to the partition's next owner again).
   */
  commitHandled(log: PartitionLog, offset: number): boolean {
    const allowed = this.member.mayCommit();
    if (allowed !== ErrorCode.NONE) {
      this.log.info(
        { topic: log.topic, partition: log.partition, errorCode: allowed },
        'offset commit refused (the group is rebalancing); the batch goes to the next owner again',
      );
      return false;
    }
    if (!this.policy.commits) return true;
    // A transaction committed this position with the batch's effects (an emitter's): writing it again adds nothing.
    if (this.broker.groups.offsetStore.get(this.groupId, log.topic, log.partition)?.offset === offset) return true;
    const entry = { topic: log.topic, partition: log.partition, offset, leaderEpoch: -1, metadata: null, commitTimestamp: Date.now() };
    // The journal line is written before commitOffsets returns, without an fsync of its own: every consumer of
    // the service applies a batch idempotently (checkpoints, stored outcomes), so an offset a power loss rolls
    // back only delivers that batch again; a later durable commit or the shutdown fsyncs the line.
    this.lastCommit = this.broker.groups
      .commitOffsets(this.groupId, [entry], false)
      .catch((err: unknown) =>
        this.log.error({ err, topic: log.topic, partition: log.partition }, 'storing a committed offset failed; the batch may come again'),
      );
    return true;
  }

  /**
   * Positions set rather than reached (`resumeAt`, `onAssigned`'s starts): committed durably, in one journal write,
   * since they replace ones the log may no longer hold.
   */
  async commitSet(positions: readonly { topic: string; partition: number; offset: number }[]): Promise<boolean> {
    if (this.member.mayCommit() !== ErrorCode.NONE) return false;
    if (!this.policy.commits) return true;
    const commitTimestamp = Date.now();
    const entries = positions.map(({ topic, partition, offset }) => ({ topic, partition, offset, leaderEpoch: -1, metadata: null, commitTimestamp }));
    await this.broker.groups.commitOffsets(this.groupId, entries, true);
    return true;
  }

  /** Resolves once the latest commit's journal line is written. */
  settled(): Promise<void> {
    return this.lastCommit;
  }
}
