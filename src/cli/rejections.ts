/**
 * `deltabroker rejections list|show|retry`: refused deltas, while the service runs. The commands talk to the
 * running service's broker and registry (or the configured Kafka cluster and Schema Registry); verdicts come
 * from the service's PostgreSQL database (DATABASE_URL, or the running embedded server), else from the outcomes
 * topic.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../config';
import { parseSince, type RejectionService, type DeltaVerdict, type RejectionFilter, type RejectionSummary, type RetryReport } from '../broker/rejections';
import { DeltabrokerError } from '../errors';
import { createToolLogger } from '../logger';
import { withRejectionService } from '../composition';
import { PIPELINE_TOPICS } from '../log/topology';
import { positiveInt } from './arguments';
import { cliBrokers, cliSasl, cliRegistryUrl, withClusterAdmin } from './cluster';
import { renderTable } from './output';
import { serviceDatabaseUrl } from './psql';

/** Runs `work` with a rejection service on the running service's log; closes everything after. */
async function withRejections<T>(config: Config, work: (service: RejectionService) => Promise<T>): Promise<T> {
  const logger = createToolLogger();
  // The admin client fails fast, with a hint, when no broker answers; the write log's producer would retry for long.
  return withClusterAdmin(config, async (admin) => {
    if (!(await admin.listTopics()).includes(PIPELINE_TOPICS.rejections)) {
      throw new DeltabrokerError(
        'DB_NOT_FOUND',
        `no topic '${PIPELINE_TOPICS.rejections}' at ${cliBrokers(config).join(', ')}: no service has run on this broker`,
        {
          field: 'DELTABROKER_KAFKA_BROKERS',
          rule: 'topic-exists',
          stage: 'cli',
        },
      );
    }
    await probeRegistry(config);
    const access = { brokers: cliBrokers(config), sasl: cliSasl(config), registryUrl: cliRegistryUrl(config), databaseUrl: storeOf(config) };
    return withRejectionService(config, access, logger, work);
  });
}

/** The service's database when it can be reached (DATABASE_URL, or the running embedded server), else undefined. */
function storeOf(config: Config): string | undefined {
  try {
    return serviceDatabaseUrl(config);
  } catch {
    return undefined;
  }
}

/** Records cannot be decoded without the registry: say so at once rather than when the first record is read. */
async function probeRegistry(config: Config): Promise<void> {
  const url = cliRegistryUrl(config);
  const probe = new URL(`${url.replace(/\/+$/, '')}/subjects`);
  probe.username = ''; // fetch refuses URLs with credentials; any answer, 401 included, shows the registry is there
  probe.password = '';
  const answered = await fetch(probe, { signal: AbortSignal.timeout(5000) }).then(
    (response) => response.status < 500,
    () => false,
  );
  if (!answered) {
    const hint = config.registry.url
      ? 'check DELTABROKER_SCHEMA_REGISTRY_URL'
      : 'start the service (npm start), whose embedded registry this is, or set DELTABROKER_SCHEMA_REGISTRY_URL';
    throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `no schema registry answers at ${url}: ${hint}`, {
      field: 'DELTABROKER_SCHEMA_REGISTRY_URL',
      stage: 'cli',
    });
  }
}

function sinceArgument(value: string): number {
  try {
    return parseSince(value, '--since', 'cli');
  } catch {
    throw new InvalidArgumentError('must be an ISO 8601 time (2026-11-23T06:00:00Z) or a duration back from now (30m, 2h, 7d)');
  }
}

interface FilterOptions {
  tenant?: string;
  entity?: string;
  stage?: string;
  code?: string;
  since?: number;
}

const filterOf = (o: FilterOptions): RejectionFilter => ({
  ...(o.tenant !== undefined && { tenant: o.tenant }),
  ...(o.entity !== undefined && { entity: o.entity }),
  ...(o.stage !== undefined && { stage: o.stage }),
  ...(o.code !== undefined && { code: o.code }),
  ...(o.since !== undefined && { since: o.since }),
});

const dash = (value: string | null | undefined): string => (value === null || value === undefined || value === '' ? '-' : value);

function retriesText(r: RejectionSummary): string {
  if (r.retries.state === 'accepted') return `accepted by ${dash(r.retries.acceptedBy)}`;
  if (r.retries.state === 'not-retriable') return 'not retriable';
  return r.retries.attempts === 0 ? 'open' : `open, ${r.retries.attempts} refused`;
}

export function renderRejectionList(items: readonly RejectionSummary[], total: number): string {
  const table = renderTable(
    ['WHEN', 'STAGE', 'CODE', 'FIELD', 'RULE', 'DELTA ID', 'REQUEST-ID', 'RECORD', 'RETRIES'],
    items.map((r) => [
      r.rejectedAt,
      r.stage,
      r.code,
      dash(r.field),
      dash(r.rule),
      dash(r.deltaId ?? `(rejection ${r.rejectionId})`),
      dash(r.requestId),
      r.tenant === null ? '-' : `${r.tenant}/${dash(r.entity)}/${dash(r.key)}`,
      r.retryOf ? `${retriesText(r)} (retry of ${r.retryOf})` : retriesText(r),
    ]),
  );
  return items.length < total ? `${table}\n\n${items.length} of ${total} shown; narrow with --since, --stage, --code or raise --limit` : table;
}

function verdictText(v: DeltaVerdict | undefined): string {
  if (!v) return 'no verdict yet (GET /deltas/<id>)';
  if (v.status === 'accepted') return `accepted, version ${v.version}`;
  return `refused: ${v.code} at ${dash(v.stage)}${v.field ? `, field ${v.field}` : ''}${v.rule ? `, rule ${v.rule}` : ''}`;
}

export function renderRetryReport(report: RetryReport & { verdicts: Record<string, DeltaVerdict> }): string {
  const rows = report.items.map((i) => [
    dash(i.deltaId),
    i.action,
    dash(i.retry?.deltaId),
    i.action === 'sent' && i.retry ? verdictText(report.verdicts[i.retry.deltaId]) : dash(i.acceptedBy ? `${i.reason ?? ''} by ${i.acceptedBy}` : i.reason),
  ]);
  const sent = report.dryRun ? `dry run: ${report.items.filter((i) => i.action === 'would-send').length} would be sent` : `${report.sent.length} sent`;
  return `${renderTable(['DELTA ID', 'ACTION', 'RETRY ID', 'OUTCOME'], rows)}\n\n${sent}`;
}

const print = (text: string): void => void process.stdout.write(`${text}\n`);
const printJson = (value: unknown): void => print(JSON.stringify(value, null, 2));

const withFilters = (command: Command): Command =>
  command
    .option('--tenant <tenant>', 'only this tenant')
    .option('--entity <entity>', 'only this entity')
    .option('--stage <stage>', 'only refusals of this stage (entity-config, validate, record-key, locate, permission, permission-filter, encryption, decode)')
    .option('--code <code>', 'only this reason code (DB_FORBIDDEN, DB_VALIDATION, DECODE_MAGIC_BYTE, ...)')
    .option('--since <time>', 'only rejections since this ISO 8601 time or this long ago (30m, 2h, 7d)', sinceArgument);

export function registerRejectionsCommands(program: Command, config: () => Config): void {
  const rejections = program
    .command('rejections')
    .description(
      'refused deltas on the rejections topic: list them, show one with its original envelope, send them through the pipeline again (works while the service runs)',
    );

  withFilters(
    rejections
      .command('list')
      .description('list refused deltas, newest first, with stage, code, field, rule, delta id, Request-ID and where their retries stand'),
  )
    .option('--limit <n>', 'show at most n (default 100)', positiveInt, 100)
    .option('--json', 'print JSON instead of a table')
    .action(async (o: FilterOptions & { limit: number; json?: boolean }) =>
      withRejections(config(), async (service) => {
        const { items, total } = await service.list(filterOf(o), o.limit);
        if (o.json) printJson({ items, total });
        else print(renderRejectionList(items, total));
      }),
    );

  rejections
    .command('show <deltaId>')
    .description(
      'print one rejection with the original envelope from the deltas topic and its retries (plaintext in sensitive fields is withheld); a rejection id shows an undecodable record',
    )
    .action(async (id: string) => withRejections(config(), async (service) => printJson(await service.show(id, {}, { kind: 'log' }))));

  withFilters(
    rejections
      .command('retry [deltaIds...]')
      .description(
        'send refused deltas through the pipeline again as new deltas naming the refused one (retryOf): the given ids, or every rejection matching --since and the other filters; a delta already accepted by a retry is not sent again',
      ),
  )
    .option('--dry-run', 'show what would be sent and send nothing')
    .option('--no-wait', 'do not wait for the verdicts of the retries')
    .option('--timeout <seconds>', 'how long to wait for verdicts (default 10)', positiveInt, 10)
    .option('--json', 'print JSON instead of a table')
    .action(async (deltaIds: string[], o: FilterOptions & { dryRun?: boolean; wait: boolean; timeout: number; json?: boolean }) => {
      if (deltaIds.length > 0 && (o.since !== undefined || o.stage !== undefined || o.code !== undefined || o.entity !== undefined)) {
        throw new DeltabrokerError('DB_VALIDATION', 'give delta ids or filters (--since, --stage, --code, --entity), not both', {
          field: 'deltaIds',
          rule: 'selection',
          stage: 'cli',
        });
      }
      if (deltaIds.length === 0 && o.since === undefined) {
        throw new DeltabrokerError('DB_VALIDATION', 'give delta ids, or --since (with --stage, --code, --entity to narrow it)', {
          field: 'deltaIds',
          rule: 'selection',
          stage: 'cli',
        });
      }
      await withRejections(config(), async (service) => {
        const selection =
          deltaIds.length > 0
            ? { kind: 'ids' as const, deltaIds, ...(o.tenant !== undefined && { tenant: o.tenant }) }
            : { kind: 'filter' as const, filter: { ...filterOf(o), since: o.since as number } };
        const report = await service.retry(selection, { dryRun: o.dryRun === true, requestId: `deltabroker-cli:${randomUUID()}` });
        const verdicts = o.wait ? Object.fromEntries(await service.awaitVerdicts(report.sent, o.timeout * 1000)) : {};
        if (o.json) printJson({ ...report, verdicts });
        else print(renderRetryReport({ ...report, verdicts }));
      });
    });
}
