import { DeltabrokerError } from '../errors';
import { registryFetch } from './registry-fetch';
import type { RecordSchema } from './schemas';

/**
 * Readiness of the schema registry for the service's writes: the subject's latest schema must accept the
 * service's own (a subject deleted, or replaced by an incompatible schema, makes every write fail). A read-only
 * compatibility check, with the service's registry credentials when it has them.
 */
export function registryAcceptsCheck(o: {
  registryUrl: string;
  subject: string;
  schema: RecordSchema;
  auth?: { username: string; password: string };
}): () => Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/vnd.schemaregistry.v1+json' };
  if (o.auth) headers.authorization = `Basic ${Buffer.from(`${o.auth.username}:${o.auth.password}`).toString('base64')}`;
  const body = JSON.stringify({ schema: JSON.stringify(o.schema.definition) });
  return async () => {
    const res = await registryFetch(`${o.registryUrl}/compatibility/subjects/${encodeURIComponent(o.subject)}/versions/latest`, {
      method: 'POST',
      headers,
      body,
      timeoutMs: 2000,
    });
    const details = { stage: 'registry', field: 'subject', subject: o.subject };
    if (res.status === 404)
      throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `the registry has no subject '${o.subject}'`, { ...details, rule: 'exists' });
    if (!res.ok) throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `the registry answered ${res.status}`, { ...details, engineStatus: res.status });
    const answer = (await res.json()) as { is_compatible?: boolean };
    if (answer.is_compatible !== true) {
      throw new DeltabrokerError('DB_CONFLICT', `the latest schema of '${o.subject}' does not accept the service's`, { ...details, rule: 'compatible-schema' });
    }
  };
}
