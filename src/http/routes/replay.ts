import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireOperator } from '../../auth/operator';
import { ReplayJobs } from '../../broker/replay-jobs';
import { DeltabrokerError } from '../../errors';
import type { Logger } from '../../logger';
import type { ProjectionReplay, ReplayFrom, ReplayRequest } from '../../replay';
import { parseBody } from '../body';

const From = z.union([
  z.literal('beginning'),
  z.strictObject({ offset: z.union([z.string().regex(/^[0-9]{1,19}$/), z.number().int().nonnegative()]) }),
  z.strictObject({ time: z.string().refine((s) => /^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time') }),
]);

const ReplayBody = z.strictObject({
  entity: z.string().min(1),
  target: z.enum(['postgres', 'search', 'all']).default('all'),
  from: From.default('beginning'),
  dryRun: z.boolean().default(false),
});

const VerifyBody = z.strictObject({ entity: z.string().min(1) });

function startOf(from: z.infer<typeof From>): ReplayFrom {
  if (from === 'beginning') return { kind: 'beginning' };
  if ('offset' in from) return { kind: 'offset', offset: BigInt(from.offset) };
  return { kind: 'time', timestamp: Date.parse(from.time) };
}

/**
 * Replay and verify of the caller's tenant's entities while the service runs (the CLI cannot open an embedded
 * database a service holds): POST /admin/replay starts a rebuild job (or answers its plan with `dryRun`),
 * POST /admin/verify starts a verify job, GET /admin/replay/:id reports a job's progress and result, GET /admin/replay
 * lists the tenant's jobs of the last hour, newest first (the console's job history). Running
 * jobs are interrupted when the server closes; their shadows stay, and the next replay resumes them.
 */
export function registerReplayRoutes(app: FastifyInstance, replay: ProjectionReplay, logger: Logger): ReplayJobs {
  const jobs = new ReplayJobs(replay, logger);
  app.addHook('onClose', async () => jobs.stop());

  app.post('/admin/replay', async (request, reply) => {
    const principal = requireOperator(request.principal, 'replay and verify');
    const body = parseBody(ReplayBody, request.body, 'replay');
    const wanted: ReplayRequest = { tenant: principal.tenant, entity: body.entity, target: body.target, from: startOf(body.from) };
    if (body.dryRun) return { dryRun: true, ...(await replay.plan(wanted)) };
    await replay.plan(wanted); // refuses an unknown entity or topic now rather than in the job
    const job = jobs.start('replay', wanted);
    return reply.code(202).header('location', `/admin/replay/${job.id}`).send(job);
  });

  app.post('/admin/verify', async (request, reply) => {
    const principal = requireOperator(request.principal, 'replay and verify');
    const body = parseBody(VerifyBody, request.body, 'replay');
    const job = jobs.start('verify', { tenant: principal.tenant, entity: body.entity });
    return reply.code(202).header('location', `/admin/replay/${job.id}`).send(job);
  });

  app.get('/admin/replay', async (request) => {
    const principal = requireOperator(request.principal, 'replay and verify');
    return { jobs: jobs.list(principal.tenant) };
  });

  app.get<{ Params: { id: string } }>('/admin/replay/:id', async (request) => {
    const principal = requireOperator(request.principal, 'replay and verify');
    const job = jobs.get(request.params.id);
    if (job === undefined || job.tenant !== principal.tenant) {
      throw new DeltabrokerError('DB_NOT_FOUND', `no replay job ${request.params.id}`, { field: 'id', rule: 'exists', stage: 'replay' });
    }
    return job;
  });
  return jobs;
}
