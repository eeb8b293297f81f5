import { DeltabrokerError } from '../errors';
import { registryFetch } from './registry-fetch';

/** A writer schema's definition (the parsed Avro JSON) by its registry id. */
export type WriterSchemaLookup = (id: number) => Promise<Readonly<Record<string, unknown>>>;

/**
 * Reads writer schemas from the (Confluent-compatible) registry by id, `GET /schemas/ids/:id`, with the service's
 * registry credentials when it has them. Ids never change what they name, so each found schema is kept.
 */
export function registryWriterSchemas(o: { registryUrl: string; auth?: { username: string; password: string } }): WriterSchemaLookup {
  const headers: Record<string, string> = { accept: 'application/vnd.schemaregistry.v1+json' };
  if (o.auth) headers.authorization = `Basic ${Buffer.from(`${o.auth.username}:${o.auth.password}`).toString('base64')}`;
  const found = new Map<number, Readonly<Record<string, unknown>>>();
  return async (id) => {
    const kept = found.get(id);
    if (kept) return kept;
    const res = await registryFetch(`${o.registryUrl}/schemas/ids/${id}`, { headers, timeoutMs: 2000 });
    if (!res.ok) {
      throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `the registry answered ${res.status} for schema id ${id}`, {
        stage: 'registry',
        field: 'schemaId',
        engineStatus: res.status,
      });
    }
    const definition = JSON.parse(((await res.json()) as { schema: string }).schema) as Record<string, unknown>;
    found.set(id, definition);
    return definition;
  };
}
