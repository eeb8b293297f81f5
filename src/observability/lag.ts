/**
 * Consumer lag (a group's committed offset against the high watermark) and projection lag (a projector's
 * stored checkpoint against the high watermark), per topic and partition. Shared by /metrics and the CLI.
 */
import type { TopicOffsets } from '../log';
import type { LogAdmin } from '../log';
import type { GroupTopics } from './consumer-groups';

export interface PartitionLag {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly high: string;
  /** Where the group (or projector) goes on next; null when it never committed (it starts at the low offset). */
  readonly committed: string | null;
  /** Records not yet consumed: high minus committed (minus low when nothing was committed), never below 0. */
  readonly lag: number;
}

/** Records between a position and the high watermark; a group with no position starts at the low offset. */
export function lagOf(offsets: TopicOffsets, position: bigint | null): number {
  const from = position ?? BigInt(offsets.low);
  const lag = BigInt(offsets.high) - from;
  return lag > 0n ? Number(lag) : 0;
}

/** Watermarks of each topic that exists; a topic not created yet is left out. */
export async function watermarks(admin: Pick<LogAdmin, 'listTopics' | 'topicOffsets'>, topics: readonly string[]): Promise<Map<string, TopicOffsets[]>> {
  const existing = new Set(await admin.listTopics());
  const wanted = [...new Set(topics)].filter((t) => existing.has(t));
  const answers = await Promise.all(wanted.map(async (t) => [t, await admin.topicOffsets(t)] as const));
  return new Map(answers);
}

/** Lag of every group on every partition of the topics it reads (topics missing from `marks` are skipped). */
export async function consumerLag(
  admin: Pick<LogAdmin, 'committedOffsets'>,
  groups: readonly GroupTopics[],
  marks: ReadonlyMap<string, TopicOffsets[]>,
): Promise<PartitionLag[]> {
  const perGroup = await Promise.all(
    groups.map(async ({ group, topics }) => {
      const present = topics.filter((t) => marks.has(t));
      const committed = new Map((await admin.committedOffsets(group, present)).map((c) => [`${c.topic}/${c.partition}`, c.offset]));
      return present.flatMap((topic) =>
        (marks.get(topic) ?? []).map((offsets) => {
          const position = committed.get(`${topic}/${offsets.partition}`) ?? null;
          return {
            group,
            topic,
            partition: offsets.partition,
            high: offsets.high,
            committed: position,
            lag: lagOf(offsets, position === null ? null : BigInt(position)),
          };
        }),
      );
    }),
  );
  return perGroup.flat();
}

export interface Checkpoint {
  readonly projector: string;
  readonly topic: string;
  readonly partition: number;
  readonly nextOffset: bigint;
}

/** Lag of each projector on every partition of the topics it reads, from its stored checkpoints. */
export function projectionLag(
  projectors: readonly string[],
  topics: readonly string[],
  marks: ReadonlyMap<string, TopicOffsets[]>,
  checkpoints: readonly Checkpoint[],
): PartitionLag[] {
  const stored = new Map(checkpoints.map((c) => [`${c.projector}/${c.topic}/${c.partition}`, c.nextOffset]));
  return projectors.flatMap((projector) =>
    topics.flatMap((topic) =>
      (marks.get(topic) ?? []).map((offsets) => {
        const next = stored.get(`${projector}/${topic}/${offsets.partition}`) ?? null;
        return {
          group: projector,
          topic,
          partition: offsets.partition,
          high: offsets.high,
          committed: next === null ? null : next.toString(),
          lag: lagOf(offsets, next),
        };
      }),
    ),
  );
}
