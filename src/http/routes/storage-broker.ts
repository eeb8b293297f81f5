import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { DeltaStatusService } from '../../broker/delta-status';
import type { QueryService } from '../../broker/query-service';
import type { WriteService } from '../../broker/write-service';
import { DeltabrokerError } from '../../errors';
import { parseBody } from '../body';

const StorageBody = z.strictObject({
  dispatch: z.strictObject({
    entity: z.string().min(1).max(63),
    operation: z.enum(['create', 'read', 'search', 'update', 'delete']),
    /** Optimistic concurrency: the version the record must have now (0: must not exist). */
    expectedVersion: z.number().int().min(0).optional(),
    /** read/search: first wait until the projection has applied this position (a write's answer gives it). */
    after: z.strictObject({ topic: z.string().min(1).max(249), partition: z.number().int().min(0), offset: z.string().regex(/^\d{1,19}$/) }).optional(),
  }),
  payload: z.unknown(),
});

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** POST / (seed 4.2): the storage broker call; GET /deltas/:id: the verdict on a delta. */
export function registerStorageBrokerRoutes(app: FastifyInstance, writes: WriteService, queries: QueryService, deltas: DeltaStatusService): void {
  app.post('/', async (request, reply) => {
    const body = parseBody(StorageBody, request.body, 'http');
    const { operation, entity, after } = body.dispatch;
    const principal = request.principal as Principal;
    if (operation === 'read') return reply.send(await queries.read(principal, entity, body.payload, after));
    if (operation === 'search') return reply.send(await queries.search(principal, entity, body.payload, after));
    return write(request, reply, writes, body, operation);
  });

  app.get<{ Params: { id: string } }>('/deltas/:id', async (request) => {
    // Delta ids are UUIDs or Idempotency-Keys; anything else (an empty id included) can never be known.
    if (!IDEMPOTENCY_KEY.test(request.params.id)) {
      throw new DeltabrokerError('DB_VALIDATION', 'a delta id is 1-128 characters of letters, digits, . _ : -', {
        field: 'id',
        rule: 'pattern',
        stage: 'http',
      });
    }
    return deltas.statusOf((request.principal as Principal).tenant, request.params.id);
  });
}

async function write(
  request: FastifyRequest,
  reply: FastifyReply,
  writes: WriteService,
  body: z.infer<typeof StorageBody>,
  operation: 'create' | 'update' | 'delete',
): Promise<FastifyReply> {
  const payload = body.payload;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new DeltabrokerError('DB_VALIDATION', `${operation} needs the full JSON object as payload`, { field: 'payload', rule: 'object', stage: 'http' });
  }
  const idempotencyKey = request.headers['idempotency-key'];
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(idempotencyKey))) {
    throw new DeltabrokerError('DB_VALIDATION', 'Idempotency-Key must be 1-128 characters of letters, digits, . _ : -', {
      field: 'Idempotency-Key',
      rule: 'pattern',
      stage: 'http',
    });
  }
  const async = /\brespond-async\b/.test(String(request.headers.prefer ?? ''));
  const result = await writes.write(request.principal as Principal, {
    entity: body.dispatch.entity,
    operation,
    payload: payload as Record<string, unknown>,
    requestId: request.id,
    async,
    ...(body.dispatch.expectedVersion !== undefined && { expectedVersion: body.dispatch.expectedVersion }),
    ...(idempotencyKey !== undefined && { deltaId: idempotencyKey }),
  });
  reply.header('Location', `/deltas/${result.deltaId}`);
  if (result.status === 'pending') {
    return reply.status(202).header('Preference-Applied', 'respond-async').send(result);
  }
  return reply.status(operation === 'create' ? 201 : 200).send(result);
}
