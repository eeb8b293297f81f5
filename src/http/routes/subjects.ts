import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../auth/principal';
import type { SubjectService } from '../../broker/subjects/subject-service';

/**
 * Data subjects of the caller's tenant: `POST /subjects/:id/erase` (role `eraser`) destroys the subject's key
 * and publishes SubjectErased; `GET /subjects/:id` (admin or eraser) lists what is held of the subject.
 */
export function registerSubjectRoutes(app: FastifyInstance, subjects: SubjectService): void {
  app.post<{ Params: { id: string } }>('/subjects/:id/erase', async (request) => {
    const result = await subjects.erase(request.principal as Principal, request.params.id, request.id);
    return { ...result.erasure, first: result.first, destroyedKeyVersions: result.destroyedKeyVersions, entities: result.entities };
  });
  app.get<{ Params: { id: string } }>('/subjects/:id', async (request) => subjects.show(request.principal as Principal, request.params.id));
}
