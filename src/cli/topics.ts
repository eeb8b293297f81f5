/**
 * `deltabroker topics list|describe|alter|groups`: topics, partitions, watermarks and consumer-group lag, and
 * the changes operators make to them, on the configured Kafka cluster or, by default, the embedded broker of
 * a running service.
 */
import type { Command } from 'commander';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import type { TopicOffsets } from '../log';
import type { LogAdmin } from '../log';
import { consumerLag, serviceGroups, type PartitionLag } from '../observability';
import { withClusterAdmin } from './cluster';
import { registerGroupsCommands } from './groups';
import { printJson, printText, renderTable } from './output';
import { registerTopicAlterCommand } from './topic-alter';

export interface TopicSummary {
  readonly topic: string;
  readonly partitions: number;
  /** Sum over partitions of the end offset (high watermark): records ever written. */
  readonly endOffset: string;
  /** Sum over partitions of high minus low: records still in the log. */
  readonly records: string;
  readonly endOffsets: readonly TopicOffsets[];
}

export interface TopicDescription {
  readonly topic: string;
  readonly partitions: readonly TopicOffsets[];
  /** Lag of each group that committed on this topic (and of every group asked for by name). */
  readonly groups: readonly PartitionLag[];
}

const sum = (values: readonly bigint[]): string => values.reduce((a, b) => a + b, 0n).toString();

export async function listTopics(admin: LogAdmin): Promise<TopicSummary[]> {
  return Promise.all(
    (await admin.listTopics()).map(async (topic) => {
      const endOffsets = await admin.topicOffsets(topic);
      return {
        topic,
        partitions: endOffsets.length,
        endOffset: sum(endOffsets.map((p) => BigInt(p.high))),
        records: sum(endOffsets.map((p) => BigInt(p.high) - BigInt(p.low))),
        endOffsets,
      };
    }),
  );
}

/**
 * Partitions and watermarks of one topic, and the lag of the service's groups that read it (in `datacenter`)
 * and of `extraGroups`. A service group that never committed on the topic is left out; a named one is not.
 */
export async function describeTopic(admin: LogAdmin, topic: string, datacenter: string, extraGroups: readonly string[] = []): Promise<TopicDescription> {
  if (!(await admin.listTopics()).includes(topic)) {
    throw new DeltabrokerError('DB_NOT_FOUND', `no topic '${topic}'; see deltabroker topics list`, { field: 'topic', stage: 'cli' });
  }
  const partitions = await admin.topicOffsets(topic);
  const known = serviceGroups(datacenter, []).map((g) => g.group);
  const groups = [...new Set([...known, ...extraGroups])].map((group) => ({ group, topics: [topic] }));
  const lags = await consumerLag(admin, groups, new Map([[topic, [...partitions]]]));
  const active = new Set(lags.filter((l) => l.committed !== null).map((l) => l.group));
  return { topic, partitions, groups: lags.filter((l) => active.has(l.group) || extraGroups.includes(l.group)) };
}

export function renderTopicList(topics: readonly TopicSummary[]): string {
  return renderTable(
    ['TOPIC', 'PARTITIONS', 'END OFFSET', 'RECORDS', 'END OFFSETS BY PARTITION'],
    topics.map((t) => [t.topic, String(t.partitions), t.endOffset, t.records, t.endOffsets.map((p) => `${p.partition}:${p.high}`).join(' ')]),
  );
}

export function renderTopicDescription(d: TopicDescription): string {
  const partitions = renderTable(
    ['PARTITION', 'LOW', 'HIGH'],
    d.partitions.map((p) => [String(p.partition), p.low, p.high]),
  );
  const groups =
    d.groups.length === 0
      ? 'no consumer group has committed on this topic'
      : renderTable(
          ['GROUP', 'PARTITION', 'COMMITTED', 'HIGH', 'LAG'],
          d.groups.map((g) => [g.group, String(g.partition), g.committed ?? '-', g.high, String(g.lag)]),
        );
  return `topic ${d.topic}: ${d.partitions.length} partition${d.partitions.length === 1 ? '' : 's'}\n\n${partitions}\n\n${groups}`;
}

export function registerTopicsCommands(program: Command, config: () => Config): void {
  const topics = program
    .command('topics')
    .description(
      "topics and consumer groups of the write log: partitions, end offsets, lag, and their changes (Kafka cluster, or the running service's embedded broker)",
    );

  topics
    .command('list')
    .description('list topics with their partition counts and end offsets')
    .option('--json', 'print JSON instead of a table')
    .action(async (o: { json?: boolean }) =>
      withClusterAdmin(config(), async (admin) => {
        const rows = await listTopics(admin);
        if (o.json) printJson(rows);
        else printText(renderTopicList(rows));
      }),
    );

  topics
    .command('describe <topic>')
    .description('partitions with low and high offsets, and the lag of the pipeline, projector and emitter groups that read the topic')
    .option('--group <group...>', 'also show these consumer groups')
    .option('--json', 'print JSON instead of tables')
    .action(async (topic: string, o: { group?: string[]; json?: boolean }) => {
      const c = config();
      await withClusterAdmin(c, async (admin) => {
        const description = await describeTopic(admin, topic, c.datacenter, o.group ?? []);
        if (o.json) printJson(description);
        else printText(renderTopicDescription(description));
      });
    });

  registerTopicAlterCommand(topics, config);
  registerGroupsCommands(topics, config);
}
