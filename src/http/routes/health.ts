import type { FastifyInstance } from 'fastify';

/** A dependency readiness depends on. `optional` ones are reported but do not make the instance unready. */
export interface ReadinessCheck {
  name: string;
  optional?: boolean;
  check(): Promise<void>;
}

/**
 * A part of the service that is refused while the rest serves (entities whose configuration is refused): listed
 * under `degraded`, never a reason to be unready. /ready is public, so a part says how many and where to look,
 * not which tenants (the operator's `deltabroker entities list` and the log name them).
 */
export interface DegradedPart {
  name: string;
  /** How many are refused now; the part is listed only when this is above 0. */
  refused(): number;
  /** What an operator does about it. */
  reason(refused: number): string;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * GET /health (liveness: the process answers) and GET /ready (each dependency answers: 200, else 503; parts that
 * are refused alone are listed under `degraded` and keep it 200). No token needed.
 */
export function registerHealthRoutes(app: FastifyInstance, checks: readonly ReadinessCheck[], parts: readonly DegradedPart[] = []): void {
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
    const degraded = parts.flatMap((p) => {
      const refused = p.refused();
      return refused > 0 ? [{ name: p.name, refused, reason: p.reason(refused) }] : [];
    });
    const ready = results.every((r) => r.status === 'up' || r.optional);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not-ready', checks: results, degraded });
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
