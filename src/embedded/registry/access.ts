import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registryErrors } from './errors';
import type { RegistryService, SchemaInput } from './service';

/** Who may change what (as Confluent's registry with HTTP basic authentication and ACLs). */
export interface RegistryAccess {
  /** Users (name → password) accepted in `Authorization: Basic`. */
  readonly users: Readonly<Record<string, string>>;
  /** The user that may change everything; other users may not change owned subjects or global settings. */
  readonly owner: string;
  ownedSubject(subject: string): boolean;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The authenticated user of a request, or undefined (no, malformed or wrong credentials). */
function basicUser(req: FastifyRequest, users: Readonly<Record<string, string>>): string | undefined {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const user = decoded.slice(0, colon);
  const expected = Object.hasOwn(users, user) ? users[user]! : undefined;
  return expected !== undefined && timingSafeEqual(digest(decoded.slice(colon + 1)), digest(expected)) ? user : undefined;
}

/** The subject a mutation changes; null for a global setting (`/config`, `/mode`). */
function subjectOf(req: FastifyRequest): string | null {
  const subject = (req.params as { subject?: string } | undefined)?.subject;
  return subject ?? null;
}

/** POST /subjects/:subject/versions with a schema the subject already has: answered with its id, nothing changes. */
function registersKnownSchema(req: FastifyRequest, service: RegistryService): boolean {
  if (req.method !== 'POST' || !req.routeOptions.url?.endsWith('/versions') || !req.routeOptions.url.startsWith('/subjects/')) return false;
  try {
    const body = req.body as SchemaInput | undefined;
    service.lookup(subjectOf(req)!, { schema: body?.schema, schemaType: body?.schemaType, references: body?.references }, false);
    return true;
  } catch {
    return false;
  }
}

const isMutation = (req: FastifyRequest): boolean =>
  req.method === 'PUT' || req.method === 'DELETE' || (req.method === 'POST' && req.routeOptions.url === '/subjects/:subject/versions');

/**
 * Reads stay open. A mutation (register, delete, config, mode) needs basic credentials (401 without); the
 * owner's subjects and the global settings change only for the owner (403 for other users). Registering a
 * schema a subject already has changes nothing and is answered without credentials, as serializers with
 * `auto.register.schemas` expect.
 */
export function guardMutations(app: FastifyInstance, service: RegistryService, access: RegistryAccess): void {
  app.addHook('preHandler', async (req, reply) => {
    if (!isMutation(req) || registersKnownSchema(req, service)) return;
    const user = basicUser(req, access.users);
    if (user === undefined) {
      void reply.header('www-authenticate', 'Basic realm="schema-registry"');
      throw registryErrors.unauthorized();
    }
    if (user === access.owner) return;
    const subject = subjectOf(req);
    if (subject === null) throw registryErrors.forbidden('the global configuration');
    if (access.ownedSubject(subject)) throw registryErrors.forbidden(`subject '${subject}' (it belongs to the service)`);
  });
}
