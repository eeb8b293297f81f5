import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { Keyring } from '../../crypto/keyring';
import { resolveMethod } from '../../crypto/methods';
import { DeltabrokerError } from '../../errors';
import { parseBody } from '../body';

const RotateBody = z.strictObject({
  method: z.string().min(1),
  key: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('default'),
});

function requireAdmin(principal: Principal | undefined): Principal {
  if (!principal?.roles.includes('admin')) {
    throw new DeltabrokerError('DB_FORBIDDEN', 'key administration needs the admin role', { field: 'Authorization', rule: 'role', stage: 'auth' });
  }
  return principal;
}

/**
 * Key administration of the caller's tenant while the service runs (the CLI's `keys` commands need exclusive
 * use of an embedded database): GET /keys lists versions (never material), POST /keys/rotate adds a version.
 */
export function registerKeyRoutes(app: FastifyInstance, keyring: Keyring): void {
  app.get('/keys', async (request) => {
    const principal = requireAdmin(request.principal);
    return { keys: await keyring.list(principal.tenant) };
  });

  app.post('/keys/rotate', async (request) => {
    const principal = requireAdmin(request.principal);
    const body = parseBody(RotateBody, request.body, 'keys');
    const method = resolveMethod(body.method, 'method');
    const version = await keyring.rotate(principal.tenant, method.family, body.key);
    return { tenant: principal.tenant, key: body.key, family: method.family, version };
  });
}
