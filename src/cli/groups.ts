/**
 * `deltabroker topics groups list|describe|delete|reset-offsets`: consumer groups of the configured Kafka
 * cluster or of the running service's embedded broker, as `kafka-consumer-groups` shows and changes them.
 */
import { Option, type Command } from 'commander';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import type { ClusterAdmin, GroupDescription } from '../log';
import { isoTime } from './arguments';
import { withClusterAdmin } from './cluster';
import { printJson, printText, renderTable } from './output';

export interface GroupSummary {
  readonly groupId: string;
  readonly protocolType: string;
  readonly state: string;
  readonly members: number;
}

/** One partition a group reads or has committed on. */
export interface GroupPartition {
  readonly topic: string;
  readonly partition: number;
  /** The group's committed offset (the next record it reads), or null when it never committed. */
  readonly committed: string | null;
  readonly high: string;
  /** High watermark minus committed (everything, when nothing was committed). */
  readonly lag: number;
  readonly memberId: string | null;
  readonly clientId: string | null;
  readonly host: string | null;
}

export interface GroupReport {
  readonly groupId: string;
  readonly state: string;
  readonly protocolType: string;
  readonly protocol: string;
  readonly members: number;
  readonly partitions: readonly GroupPartition[];
}

export type ResetTarget = { readonly kind: 'earliest' } | { readonly kind: 'latest' } | { readonly kind: 'time'; readonly timestamp: number };

export interface OffsetReset {
  readonly topic: string;
  readonly partition: number;
  readonly previous: string | null;
  readonly next: string;
}

export async function listGroups(admin: ClusterAdmin): Promise<GroupSummary[]> {
  return Promise.all(
    (await admin.listGroups()).map(async (g) => {
      const d = await admin.describeGroup(g.groupId);
      return { groupId: g.groupId, protocolType: g.protocolType, state: d.state, members: d.members.length };
    }),
  );
}

async function knownGroup(admin: ClusterAdmin, groupId: string): Promise<GroupDescription> {
  const d = await admin.describeGroup(groupId);
  if (d.state === 'Dead')
    throw new DeltabrokerError('DB_NOT_FOUND', `no group '${groupId}'; see deltabroker topics groups list`, { field: 'group', stage: 'cli' });
  return d;
}

/** Every partition the group is assigned or has committed on, with its lag and the member that reads it. */
export async function describeGroup(admin: ClusterAdmin, groupId: string): Promise<GroupReport> {
  const d = await knownGroup(admin, groupId);
  const owner = new Map<string, GroupDescription['members'][number]>();
  for (const m of d.members) for (const a of m.assignment) for (const p of a.partitions) owner.set(`${a.topic}\0${p}`, m);
  const committed = new Map(d.offsets.map((o) => [`${o.topic}\0${o.partition}`, o.offset]));
  const topics = [...new Set([...d.offsets.map((o) => o.topic), ...d.members.flatMap((m) => m.assignment.map((a) => a.topic))])].sort();
  const existing = new Set(await admin.listTopics());
  const partitions: GroupPartition[] = [];
  for (const topic of topics.filter((t) => existing.has(t))) {
    for (const p of await admin.topicOffsets(topic)) {
      const key = `${topic}\0${p.partition}`;
      const member = owner.get(key);
      const at = committed.get(key) ?? null;
      if (at === null && !member) continue;
      partitions.push({
        topic,
        partition: p.partition,
        committed: at,
        high: p.high,
        lag: Number(BigInt(p.high) - BigInt(at ?? p.low)),
        memberId: member?.memberId ?? null,
        clientId: member?.clientId ?? null,
        host: member?.clientHost ?? null,
      });
    }
  }
  return { groupId, state: d.state, protocolType: d.protocolType, protocol: d.protocol, members: d.members.length, partitions };
}

export async function deleteGroup(admin: ClusterAdmin, groupId: string): Promise<void> {
  const d = await knownGroup(admin, groupId);
  if (d.members.length > 0) {
    throw new DeltabrokerError('DB_CONFLICT', `group '${groupId}' has ${d.members.length} member(s); stop its consumers first`, {
      field: 'group',
      rule: 'group-empty',
      stage: 'cli',
    });
  }
  await admin.deleteGroup(groupId);
}

/**
 * Moves a group's committed offsets on one topic to its earliest or latest offsets or to a time (the first
 * record at or after it; the end where there is none). The group must have no members. `dryRun` computes
 * and commits nothing.
 */
export async function resetGroupOffsets(admin: ClusterAdmin, groupId: string, topic: string, target: ResetTarget, dryRun: boolean): Promise<OffsetReset[]> {
  if (!(await admin.listTopics()).includes(topic))
    throw new DeltabrokerError('DB_NOT_FOUND', `no topic '${topic}'; see deltabroker topics list`, { field: 'topic', stage: 'cli' });
  const d = await admin.describeGroup(groupId);
  if (d.members.length > 0) {
    throw new DeltabrokerError('DB_CONFLICT', `group '${groupId}' has ${d.members.length} member(s); stop its consumers before resetting offsets`, {
      field: 'group',
      rule: 'group-empty',
      stage: 'cli',
    });
  }
  const watermarks = await admin.topicOffsets(topic);
  const byTime =
    target.kind === 'time'
      ? new Map((await admin.offsetsForTime(topic, target.timestamp)).map((p) => [p.partition, p.offset]))
      : new Map<number, string | null>();
  const previous = new Map(d.offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset]));
  const resets = watermarks.map((p) => ({
    topic,
    partition: p.partition,
    previous: previous.get(p.partition) ?? null,
    next: target.kind === 'earliest' ? p.low : target.kind === 'latest' ? p.high : (byTime.get(p.partition) ?? p.high),
  }));
  if (!dryRun)
    await admin.commitGroupOffsets(
      groupId,
      topic,
      resets.map((r) => ({ partition: r.partition, offset: r.next })),
    );
  return resets;
}

export const renderGroupList = (groups: readonly GroupSummary[]): string =>
  renderTable(
    ['GROUP', 'STATE', 'MEMBERS', 'PROTOCOL TYPE'],
    groups.map((g) => [g.groupId, g.state, String(g.members), g.protocolType || '-']),
  );

export function renderGroupReport(r: GroupReport): string {
  const head = `group ${r.groupId}: ${r.state}, ${r.members} member${r.members === 1 ? '' : 's'}${r.protocol ? `, assignor ${r.protocol}` : ''}`;
  if (r.partitions.length === 0) return `${head}\n\nno partition assigned or committed`;
  const rows = r.partitions.map((p) => [
    p.topic,
    String(p.partition),
    p.committed ?? '-',
    p.high,
    String(p.lag),
    p.memberId ?? '-',
    p.host ?? '-',
    p.clientId ?? '-',
  ]);
  return `${head}\n\n${renderTable(['TOPIC', 'PARTITION', 'COMMITTED', 'HIGH', 'LAG', 'MEMBER', 'HOST', 'CLIENT ID'], rows)}`;
}

export const renderResets = (resets: readonly OffsetReset[], dryRun: boolean): string =>
  `${renderTable(
    ['TOPIC', 'PARTITION', 'PREVIOUS', 'NEW'],
    resets.map((r) => [r.topic, String(r.partition), r.previous ?? '-', r.next]),
  )}${dryRun ? '\n\ndry run: nothing was committed' : ''}`;

interface ResetOptions {
  topic: string;
  toEarliest?: boolean;
  toLatest?: boolean;
  toDatetime?: number;
  dryRun?: boolean;
  json?: boolean;
}

function resetTarget(o: ResetOptions): ResetTarget {
  const chosen = [o.toEarliest, o.toLatest, o.toDatetime].filter((v) => v !== undefined).length;
  if (chosen !== 1)
    throw new DeltabrokerError('DB_VALIDATION', 'give exactly one of --to-earliest, --to-latest, --to-datetime', { field: 'to', rule: 'one-of', stage: 'cli' });
  if (o.toDatetime !== undefined) return { kind: 'time', timestamp: o.toDatetime };
  return { kind: o.toEarliest ? 'earliest' : 'latest' };
}

export function registerGroupsCommands(topics: Command, config: () => Config): void {
  const groups = topics.command('groups').description('consumer groups: list, describe with lag, delete, reset committed offsets');

  groups
    .command('list')
    .description('list consumer groups with their state and member count')
    .option('--json', 'print JSON instead of a table')
    .action(async (o: { json?: boolean }) =>
      withClusterAdmin(config(), async (admin) => {
        const rows = await listGroups(admin);
        if (o.json) printJson(rows);
        else printText(renderGroupList(rows));
      }),
    );

  groups
    .command('describe <group>')
    .description('the partitions a group reads or committed on: committed offset, high watermark, lag and the member reading each')
    .option('--json', 'print JSON instead of a table')
    .action(async (group: string, o: { json?: boolean }) =>
      withClusterAdmin(config(), async (admin) => {
        const report = await describeGroup(admin, group);
        if (o.json) printJson(report);
        else printText(renderGroupReport(report));
      }),
    );

  groups
    .command('delete <group>')
    .description('delete a group that has no members, with its committed offsets')
    .option('--json', 'print JSON instead of a line of text')
    .action(async (group: string, o: { json?: boolean }) =>
      withClusterAdmin(config(), async (admin) => {
        await deleteGroup(admin, group);
        if (o.json) printJson({ groupId: group, deleted: true });
        else printText(`deleted group ${group}`);
      }),
    );

  groups
    .command('reset-offsets <group>')
    .description("move a stopped group's committed offsets on a topic to the earliest or latest offsets or to a time")
    .requiredOption('--topic <topic>', 'the topic whose offsets move (every partition)')
    .addOption(new Option('--to-earliest', 'to the first offset still in the log'))
    .addOption(new Option('--to-latest', 'to the end: the group skips what is there now'))
    .addOption(new Option('--to-datetime <iso>', 'to the first record at or after this time (the end where there is none)').argParser(isoTime))
    .option('--dry-run', 'print the new offsets without committing them')
    .option('--json', 'print JSON instead of a table')
    .action(async (group: string, o: ResetOptions) => {
      const target = resetTarget(o);
      await withClusterAdmin(config(), async (admin) => {
        const resets = await resetGroupOffsets(admin, group, o.topic, target, o.dryRun === true);
        if (o.json) printJson({ groupId: group, dryRun: o.dryRun === true, offsets: resets });
        else printText(renderResets(resets, o.dryRun === true));
      });
    });
}
