/** `deltabroker topics alter <topic>`: more partitions, another retention. */
import type { Command } from 'commander';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import type { ClusterAdmin } from '../log';
import { positiveInt, retentionLimit } from './arguments';
import { withClusterAdmin } from './cluster';
import { printJson, printText, renderTable } from './output';

export interface TopicChange {
  readonly partitions?: number;
  readonly retentionMs?: number;
  readonly retentionBytes?: number;
}

export interface AlteredTopic {
  readonly topic: string;
  readonly partitions: number;
  readonly configs: Readonly<Record<string, string | null>>;
}

const SHOWN_CONFIGS = ['retention.ms', 'retention.bytes', 'cleanup.policy'];

/** Applies the change and reads the topic back. Partitions can only grow; retention -1 means no limit. */
export async function alterTopic(admin: ClusterAdmin, topic: string, change: TopicChange): Promise<AlteredTopic> {
  if (change.partitions === undefined && change.retentionMs === undefined && change.retentionBytes === undefined) {
    throw new DeltabrokerError('DB_VALIDATION', 'nothing to change: give --partitions, --retention-ms or --retention-bytes', {
      field: 'options',
      rule: 'required',
      stage: 'cli',
    });
  }
  if (!(await admin.listTopics()).includes(topic))
    throw new DeltabrokerError('DB_NOT_FOUND', `no topic '${topic}'; see deltabroker topics list`, { field: 'topic', stage: 'cli' });
  if (change.partitions !== undefined) {
    const now = (await admin.topicOffsets(topic)).length;
    if (change.partitions <= now) {
      throw new DeltabrokerError('DB_VALIDATION', `topic '${topic}' has ${now} partitions; partitions can only be added (give more than ${now})`, {
        field: 'partitions',
        rule: 'greater-than-current',
        stage: 'cli',
      });
    }
    await admin.createPartitions(topic, change.partitions);
  }
  const configs: Record<string, string> = {};
  if (change.retentionMs !== undefined) configs['retention.ms'] = String(change.retentionMs);
  if (change.retentionBytes !== undefined) configs['retention.bytes'] = String(change.retentionBytes);
  if (Object.keys(configs).length > 0) await admin.setTopicConfigs(topic, configs);
  const entries = await admin.topicConfigs(topic);
  return {
    topic,
    partitions: (await admin.topicOffsets(topic)).length,
    configs: Object.fromEntries(SHOWN_CONFIGS.map((name) => [name, entries.find((e) => e.name === name)?.value ?? null])),
  };
}

export const renderAlteredTopic = (t: AlteredTopic): string =>
  `topic ${t.topic}: ${t.partitions} partition${t.partitions === 1 ? '' : 's'}\n\n${renderTable(
    ['CONFIG', 'VALUE'],
    Object.entries(t.configs).map(([k, v]) => [k, v ?? '-']),
  )}`;

export function registerTopicAlterCommand(topics: Command, config: () => Config): void {
  topics
    .command('alter <topic>')
    .description("add partitions to a topic or change its retention (records beyond it are deleted at the broker's next retention check)")
    .option(
      '--partitions <n>',
      'the new partition count (only more: keys then map to other partitions, so per-key order holds only for records written after)',
      positiveInt,
    )
    .option('--retention-ms <ms>', 'keep records this long; -1 keeps them forever', retentionLimit)
    .option('--retention-bytes <bytes>', 'keep at most this many bytes per partition; -1 for no limit', retentionLimit)
    .option('--json', 'print JSON instead of a table')
    .action(async (topic: string, o: TopicChange & { json?: boolean }) =>
      withClusterAdmin(config(), async (admin) => {
        const altered = await alterTopic(admin, topic, o);
        if (o.partitions !== undefined)
          process.stderr.write(`note: keys of ${topic} now map to other partitions; per-key order holds for records written from now on\n`);
        if (o.json) printJson(altered);
        else printText(renderAlteredTopic(altered));
      }),
    );
}
