import type { FastifyInstance } from 'fastify';

/** GET /whoami: the caller's principal as the service sees it (like Vault's token lookup-self). */
export function registerWhoamiRoute(app: FastifyInstance): void {
  app.get('/whoami', async (request) => request.principal);
}
