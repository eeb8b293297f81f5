import type { FastifyInstance } from 'fastify';

/** A dependency readiness depends on. `optional` ones are reported but do not make the instance unready. */
export interface ReadinessCheck {
  name: string;
  optional?: boolean;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

/** GET /health (liveness: the process answers) and GET /ready (each dependency answers). No token needed. */
export function registerHealthRoutes(app: FastifyInstance, checks: readonly ReadinessCheck[]): void {
  app.get('/health', { config: { public: true } }, async () => ({ status: 'ok' }));

  app.get('/ready', { config: { public: true } }, async (_request, reply) => {
    const results = await Promise.all(
      checks.map(async (c) => {
        try {
          await withTimeout(c.check(), CHECK_TIMEOUT_MS);
          return { name: c.name, status: 'up' as const, optional: c.optional === true };
        } catch (error) {
          return { name: c.name, status: 'down' as const, optional: c.optional === true, reason: (error as Error).message };
        }
      }),
    );
    const ready = results.every((r) => r.status === 'up' || r.optional);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not-ready', checks: results });
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
