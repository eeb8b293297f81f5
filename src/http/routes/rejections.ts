import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireOperator } from '../../auth/operator';
import { parseSince, type RejectionService, type RetrySelection } from '../../broker/rejections';
import { DeltabrokerError } from '../../errors';
import { parseBody } from '../body';

const STAGE = 'rejections';
const DELTA_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const DELTA_ID_RULE = 'a delta id is 1-128 characters of letters, digits, . _ : -';
const NAME = z.string().min(1).max(128);

const ListQuery = z.strictObject({
  entity: NAME.optional(),
  stage: NAME.optional(),
  code: NAME.optional(),
  since: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const RetryBody = z
  .strictObject({
    deltaIds: z.array(z.string().regex(DELTA_ID, DELTA_ID_RULE)).min(1).max(1000).optional(),
    since: z.string().min(1).max(64).optional(),
    entity: NAME.optional(),
    stage: NAME.optional(),
    code: NAME.optional(),
    dryRun: z.boolean().default(false),
  })
  .refine((b) => (b.deltaIds === undefined) !== (b.since === undefined), {
    message: 'give either deltaIds or since (with entity, stage, code to narrow it)',
    path: ['deltaIds'],
  });

export interface RejectionRouteOptions {
  /** How long a retry waits for its verdicts before answering (the write timeout). */
  readonly waitMs: number;
}

/**
 * The refused deltas of the caller's tenant, for operators (the CLI's `rejections` commands over HTTP):
 * GET /admin/rejections lists them newest first, GET /admin/rejections/:id shows one with its envelope (the
 * payload as the caller's roles may read it), POST /admin/rejections/retry sends refused deltas again and,
 * unless `Prefer: respond-async`, waits for their verdicts.
 */
export function registerRejectionRoutes(app: FastifyInstance, rejections: RejectionService, options: RejectionRouteOptions): void {
  const what = 'refused deltas';

  app.get('/admin/rejections', async (request) => {
    const { tenant } = requireOperator(request.principal, what);
    const query = parseBody(ListQuery, request.query, STAGE);
    const since = query.since === undefined ? undefined : parseSince(query.since, 'since', STAGE);
    const filter = {
      tenant,
      ...(query.entity && { entity: query.entity }),
      ...(query.stage && { stage: query.stage }),
      ...(query.code && { code: query.code }),
      ...(since !== undefined && { since }),
    };
    return rejections.list(filter, query.limit);
  });

  app.get<{ Params: { id: string } }>('/admin/rejections/:id', async (request) => {
    const principal = requireOperator(request.principal, what);
    const { id } = request.params;
    if (!DELTA_ID.test(id)) throw new DeltabrokerError('DB_VALIDATION', DELTA_ID_RULE, { field: 'id', rule: 'pattern', stage: STAGE });
    return rejections.show(id, { tenant: principal.tenant }, { kind: 'roles', roles: principal.roles });
  });

  app.post('/admin/rejections/retry', async (request, reply) => {
    const { tenant } = requireOperator(request.principal, what);
    const body = parseBody(RetryBody, request.body, STAGE);
    const selection: RetrySelection = body.deltaIds
      ? { kind: 'ids', deltaIds: body.deltaIds, tenant }
      : {
          kind: 'filter',
          filter: {
            tenant,
            since: parseSince(body.since ?? '', 'since', STAGE),
            ...(body.entity && { entity: body.entity }),
            ...(body.stage && { stage: body.stage }),
            ...(body.code && { code: body.code }),
          },
        };
    const report = await rejections.retry(selection, { dryRun: body.dryRun, requestId: request.id });
    if (/\brespond-async\b/.test(String(request.headers.prefer ?? '')) && report.sent.length > 0) {
      return reply
        .status(202)
        .header('Preference-Applied', 'respond-async')
        .send({ ...report, verdicts: {} });
    }
    const verdicts = await rejections.awaitVerdicts(report.sent, options.waitMs);
    return { ...report, verdicts: Object.fromEntries(verdicts) };
  });
}
