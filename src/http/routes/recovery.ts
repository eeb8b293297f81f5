import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireOperator } from '../../auth/operator';
import type { ReplayJobs } from '../../broker/replay-jobs';
import type { TopicRecovery } from '../../replay';
import { parseBody } from '../body';

const RecoverBody = z.strictObject({ entity: z.string().min(1) });

/**
 * POST /admin/recover {"entity"}: recovers the caller's tenant's entity whose persistence topic was deleted and
 * created again (see TopicRecovery), and answers its report once its partitions are consumed again. It waits: the
 * rebuild reads only what the new topic holds, and an operator wants to know the partitions run before going on.
 * It runs as the entity's one replay job (`jobs`): a replay or verify of the entity and a second recovery wait.
 */
export function registerRecoveryRoute(app: FastifyInstance, recovery: TopicRecovery, jobs: ReplayJobs): void {
  app.post('/admin/recover', async (request) => {
    const principal = requireOperator(request.principal, 'recover');
    const body = parseBody(RecoverBody, request.body, 'recover');
    const wanted = { tenant: principal.tenant, entity: body.entity };
    return jobs.runAlone(wanted, 'recovery', () => recovery.recover(wanted));
  });
}
