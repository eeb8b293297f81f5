/**
 * The Confluent Schema Registry REST API (the part Avro clients use) over a RegistryService.
 * Bodies and answers are `application/vnd.schemaregistry.v1+json`; errors are `{ error_code, message }`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RegistryError, registryErrors } from './errors';
import { parseVersionRef, type RegistryService, type SchemaInput } from './service';

export const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const ACCEPTED_BODY_TYPES = [CONTENT_TYPE, 'application/vnd.schemaregistry+json', 'application/json', 'application/octet-stream'];

interface SubjectParams {
  subject: string;
}
interface VersionParams extends SubjectParams {
  version: string;
}
interface IdParams {
  id: string;
}
type Query = Record<string, string | undefined>;

const flag = (q: unknown, name: string): boolean => (q as Query | undefined)?.[name] === 'true';

function schemaInput(body: unknown): SchemaInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw registryErrors.invalidSchema('the body must be a JSON object with a `schema` field');
  }
  const b = body as Record<string, unknown>;
  return { schema: b.schema, schemaType: b.schemaType, references: b.references };
}

function parseId(text: string): number {
  if (!/^\d+$/.test(text)) throw registryErrors.schemaNotFound(text);
  return Number(text);
}

export function registerRoutes(app: FastifyInstance, service: RegistryService): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(ACCEPTED_BODY_TYPES, { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(registryErrors.badRequest('The request body is not valid JSON'), undefined);
    }
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('content-type', CONTENT_TYPE);
    return payload;
  });
  app.setErrorHandler((error: unknown, _req: FastifyRequest, reply: FastifyReply) => {
    const e =
      error instanceof RegistryError
        ? error
        : typeof (error as { statusCode?: unknown }).statusCode === 'number' && (error as { statusCode: number }).statusCode < 500
          ? new RegistryError((error as { statusCode: number }).statusCode, (error as { statusCode: number }).statusCode, (error as Error).message)
          : registryErrors.internal((error as Error).message ?? 'internal error');
    void reply.status(e.status).send(e.toBody());
  });
  app.setNotFoundHandler((_req, reply) => {
    const e = registryErrors.routeNotFound();
    void reply.status(e.status).send(e.toBody());
  });

  app.get('/', async () => ({}));

  // ---- schemas by id -------------------------------------------------------------------------------
  app.get('/schemas/types', async () => ['AVRO']);
  app.get<{ Params: IdParams }>('/schemas/ids/:id', async (req) => ({ schema: service.schemaById(parseId(req.params.id)) }));
  app.get<{ Params: IdParams }>('/schemas/ids/:id/schema', async (req, reply) => reply.send(JSON.parse(service.schemaById(parseId(req.params.id))) as unknown));
  app.get<{ Params: IdParams }>('/schemas/ids/:id/versions', async (req) => service.usesOf(parseId(req.params.id)));
  app.get<{ Params: IdParams }>('/schemas/ids/:id/subjects', async (req) => [...new Set(service.usesOf(parseId(req.params.id)).map((u) => u.subject))]);

  // ---- subjects ------------------------------------------------------------------------------------
  app.get('/subjects', async (req) => service.subjects(flag(req.query, 'deleted')));
  app.get<{ Params: SubjectParams }>('/subjects/:subject/versions', async (req) => service.versionNumbers(req.params.subject, flag(req.query, 'deleted')));
  app.get<{ Params: VersionParams }>('/subjects/:subject/versions/:version', async (req) =>
    service.version(req.params.subject, parseVersionRef(req.params.version), flag(req.query, 'deleted')),
  );
  app.get<{ Params: VersionParams }>('/subjects/:subject/versions/:version/schema', async (req, reply) =>
    reply.send(JSON.parse(service.version(req.params.subject, parseVersionRef(req.params.version)).schema) as unknown),
  );
  app.get<{ Params: VersionParams }>('/subjects/:subject/versions/:version/referencedby', async (req) => {
    service.version(req.params.subject, parseVersionRef(req.params.version));
    return [];
  });
  app.post<{ Params: SubjectParams }>('/subjects/:subject/versions', async (req) => service.register(req.params.subject, schemaInput(req.body)));
  app.post<{ Params: SubjectParams }>('/subjects/:subject', async (req) =>
    service.lookup(req.params.subject, schemaInput(req.body), flag(req.query, 'deleted')),
  );
  app.delete<{ Params: SubjectParams }>('/subjects/:subject', async (req) => service.deleteSubject(req.params.subject, flag(req.query, 'permanent')));
  app.delete<{ Params: VersionParams }>('/subjects/:subject/versions/:version', async (req) =>
    service.deleteVersion(req.params.subject, parseVersionRef(req.params.version), flag(req.query, 'permanent')),
  );

  // ---- config --------------------------------------------------------------------------------------
  app.get('/config', async () => ({ compatibilityLevel: service.globalLevel() }));
  app.put('/config', async (req) => ({ compatibility: await service.setLevel(null, compatibilityOf(req.body)) }));
  app.get<{ Params: SubjectParams }>('/config/:subject', async (req) => ({
    compatibilityLevel: service.subjectLevel(req.params.subject, flag(req.query, 'defaultToGlobal')),
  }));
  app.put<{ Params: SubjectParams }>('/config/:subject', async (req) => ({
    compatibility: await service.setLevel(req.params.subject, compatibilityOf(req.body)),
  }));
  app.delete<{ Params: SubjectParams }>('/config/:subject', async (req) => ({
    compatibilityLevel: await service.deleteSubjectLevel(req.params.subject),
  }));

  // ---- compatibility -------------------------------------------------------------------------------
  const compatibilityAnswer = (problems: { description: string }[], verbose: boolean) =>
    verbose ? { is_compatible: problems.length === 0, messages: problems.map((p) => p.description) } : { is_compatible: problems.length === 0 };
  app.post<{ Params: VersionParams }>('/compatibility/subjects/:subject/versions/:version', async (req) =>
    compatibilityAnswer(service.checkCompatibility(req.params.subject, parseVersionRef(req.params.version), schemaInput(req.body)), flag(req.query, 'verbose')),
  );
  app.post<{ Params: SubjectParams }>('/compatibility/subjects/:subject/versions', async (req) =>
    compatibilityAnswer(service.checkCompatibility(req.params.subject, 'all', schemaInput(req.body)), flag(req.query, 'verbose')),
  );
}

function compatibilityOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>).compatibility : undefined;
}
