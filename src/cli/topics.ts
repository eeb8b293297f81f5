/**
 * `deltabroker topics list|describe|alter|groups`: topics, partitions, watermarks and consumer-group lag, and
 * the changes operators make to them, on the configured Kafka cluster or, by default, the embedded broker of
 * a running service.
 */
import type { Command } from 'commander';
import { LogTopicsService, type TopicDescription, type TopicSummary } from '../broker/log-topics';
import type { Config } from '../config';
import { withClusterAdmin } from './cluster';
import { registerGroupsCommands } from './groups';
import { printJson, printText, renderTable } from './output';
import { registerTopicAlterCommand } from './topic-alter';

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
    .action(async (o: { json?: boolean }) => {
      const c = config();
      await withClusterAdmin(c, async (admin) => {
        const rows = await new LogTopicsService({ admin, datacenter: c.datacenter }).list({ kind: 'cluster' });
        if (o.json) printJson(rows);
        else printText(renderTopicList(rows));
      });
    });

  topics
    .command('describe <topic>')
    .description('partitions with low and high offsets, and the lag of the pipeline, projector and emitter groups that read the topic')
    .option('--group <group...>', 'also show these consumer groups')
    .option('--json', 'print JSON instead of tables')
    .action(async (topic: string, o: { group?: string[]; json?: boolean }) => {
      const c = config();
      await withClusterAdmin(c, async (admin) => {
        const description = await new LogTopicsService({ admin, datacenter: c.datacenter }).describe({ kind: 'cluster' }, topic, o.group ?? []);
        if (o.json) printJson(description);
        else printText(renderTopicDescription(description));
      });
    });

  registerTopicAlterCommand(topics, config);
  registerGroupsCommands(topics, config);
}
