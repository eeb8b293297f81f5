/** What a replay plan, a rebuild and a verify answer. */
import type { ReplayTargetKind } from './requests';

export interface PartitionPlan {
  readonly partition: number;
  readonly low: string;
  readonly high: string;
  /** Where the replay starts; null for `--from-time` (the log finds the offset when the replay starts). */
  readonly start: string | null;
  /** Events to read (an upper bound when `start` is null). */
  readonly events: number;
}

export interface TargetPlan {
  readonly kind: ReplayTargetKind;
  readonly live: string;
  readonly shadow: string;
  readonly liveProjector: string;
  /** The live projector's checkpoints now, per partition. */
  readonly liveCheckpoints: Readonly<Record<string, string>>;
  /** An interrupted replay left this shadow: a replay would resume it. */
  readonly resumable: boolean;
}

export interface ReplayPlan {
  readonly tenant: string;
  readonly entity: string;
  readonly topic: string;
  readonly from: string;
  readonly sharedTopic: boolean;
  readonly partitions: PartitionPlan[];
  readonly events: number;
  readonly targets: TargetPlan[];
}

export interface TargetOutcome {
  readonly kind: ReplayTargetKind;
  readonly live: string;
  readonly resumed: boolean;
  /** Per partition: the live projector's checkpoint before and after the handover. */
  readonly handover: { partition: number; before: string; after: string }[];
}

export interface RebuildResult {
  readonly tenant: string;
  readonly entity: string;
  readonly topic: string;
  readonly targets: TargetOutcome[];
  /** Events read from the topic over every pass. */
  readonly events: number;
  readonly passes: number;
  readonly durationMs: number;
  /** How long the swap transaction held the live projectors (and the live search table). */
  readonly swapMs: number;
}

export interface TableDigest {
  readonly rows: number;
  readonly checksum: string;
}

export interface RowDifference {
  /** The key values as Postgres prints a row of them, e.g. `(m-1)`. */
  readonly key: string;
  readonly kind: 'missing-in-live' | 'missing-in-replay' | 'differs';
  readonly liveVersion: number | null;
  readonly replayVersion: number | null;
}

export interface TableComparison {
  readonly live: TableDigest | null;
  readonly replay: TableDigest;
  /** Configured field columns the live table does not have. */
  readonly columnsMissingInLive: string[];
  readonly differingRows: number;
  /** The first differing rows, in key order. */
  readonly differences: RowDifference[];
  readonly equal: boolean;
}

export interface VerifyReport extends TableComparison {
  readonly tenant: string;
  readonly entity: string;
  readonly topic: string;
  readonly table: string;
  /** The log positions both sides were compared at: per partition, the next offset. */
  readonly positions: Readonly<Record<string, string>>;
  readonly events: number;
  readonly durationMs: number;
}
