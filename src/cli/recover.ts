import type { Command } from 'commander';
import type { Config } from '../config';
import { DeltabrokerError, ERROR_CATALOGUE, type ErrorCode } from '../errors';
import type { RecoveryReport } from '../replay';
import { readRunning } from '../system/service-endpoints';
import { mintToken } from './token';

interface RecoverOptions {
  entity: string;
  tenant: string;
  url?: string;
  token?: string;
  json?: boolean;
}

/**
 * `recover`: asks the running service to recover an entity whose persistence topic was deleted and created again
 * (POST /admin/recover). The service does the work: it alone holds the stopped partitions and their consumers.
 */
export function registerRecoverCommand(program: Command, config: () => Config): void {
  program
    .command('recover')
    .description(
      'recover an entity whose persistence topic was deleted and created again (DB_TOPIC_RECREATED): the running service rebuilds its projections from the new topic and consumes the stopped partitions again',
    )
    .requiredOption('--entity <name>', 'the entity')
    .option('--tenant <tenant>', 'the tenant', 'acme')
    .option('--url <url>', "the service's HTTP API (default: the service running on this data directory)")
    .option('--token <jwt>', 'an admin token of the tenant (default: $DELTABROKER_TOKEN, else one from the development issuer)')
    .option('--json', 'print the whole report as JSON')
    .action(async (o: RecoverOptions) => {
      const c = config();
      const url = o.url ?? readRunning(c.dataDir)?.http;
      if (url === undefined) {
        throw new DeltabrokerError(
          'DB_DEPENDENCY_UNAVAILABLE',
          `no service runs on the data directory ${c.dataDir}: recovery runs inside the service, which holds the stopped partitions; start it (it stops the recreated topic again at start), or name a running one with --url`,
          { field: 'url', stage: 'cli' },
        );
      }
      const token =
        o.token ?? process.env.DELTABROKER_TOKEN ?? (await mintToken(c, { sub: 'deltabroker-recover', tenant: o.tenant, roles: 'admin', ttl: 600 }));
      const response = await fetch(new URL('/admin/recover', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ entity: o.entity }),
      });
      const body = (await response.json()) as RecoveryReport | Problem;
      if (!response.ok) throw refusalOf(body as Problem, response.status);
      const report = body as RecoveryReport;
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatRecoveryReport(report));
    });
}

interface Problem {
  code?: string;
  detail?: string;
  field?: string;
  rule?: string;
  stage?: string;
}

/** The service's problem answer as the error the CLI prints (`<code>: <detail>`) and exits 1 with. */
function refusalOf(problem: Problem, status: number): DeltabrokerError {
  const code = problem.code !== undefined && problem.code in ERROR_CATALOGUE ? (problem.code as ErrorCode) : 'DB_INTERNAL';
  return new DeltabrokerError(code, problem.detail ?? `the service answered ${status}`, {
    ...(problem.field && { field: problem.field }),
    ...(problem.rule && { rule: problem.rule }),
    stage: problem.stage ?? 'recover',
  });
}

export function formatRecoveryReport(r: RecoveryReport): string {
  const events = `${r.rebuild.events} event${r.rebuild.events === 1 ? '' : 's'}`;
  const lines = [`${r.tenant}/${r.entity}: ${r.topic} recovered in ${r.durationMs} ms; ${events} of the new topic rebuilt into`];
  for (const target of r.rebuild.targets) {
    const moves = target.handover.map((h) => `${h.partition}:${h.before}→${h.after}`).join(' ');
    lines.push(`  ${target.kind} ${target.live}, checkpoints ${moves || '(none)'}`);
  }
  const states = r.stateCheckpoints.map((c) => `${c.partition}:${c.before}→${c.after}`).join(' ');
  lines.push(`  the pipeline's state checkpoints ${states || 'held no old position'}`);
  lines.push('consumed again:');
  for (const p of r.resumed) lines.push(`  ${p.consumer} ${r.topic}/${p.partition} (had stopped at ${p.position}, the log ended at ${p.highWatermark})`);
  return `${lines.join('\n')}\n`;
}
