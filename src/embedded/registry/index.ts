/**
 * The embedded schema registry: Confluent Schema Registry's REST API for Avro schemas, durable in a data
 * directory, for running deltabroker on one machine with nothing else installed.
 */
import fastify from 'fastify';
import type { Logger } from '../../logger';
import { Journal } from './journal';
import { registerRoutes } from './routes';
import { guardMutations, type RegistryAccess } from './access';
import { RegistryService } from './service';

export type { RegistryAccess } from './access';

export interface EmbeddedRegistryOptions {
  /** Directory of the journal file (`schemas.jsonl`); created when missing. */
  readonly dataDir: string;
  /** TCP port; 8081 by default, 0 for an ephemeral one. */
  readonly port?: number;
  /** Interface to listen on; 127.0.0.1 by default. */
  readonly host?: string;
  readonly logger?: Logger;
  /** Credentials for mutations and the subjects only their owner changes. Without it every request is allowed. */
  readonly access?: RegistryAccess;
}

export interface EmbeddedRegistry {
  /** Base URL for registry clients, e.g. `http://127.0.0.1:8081`. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startEmbeddedRegistry(o: EmbeddedRegistryOptions): Promise<EmbeddedRegistry> {
  const { journal, loaded } = await Journal.open(o.dataDir);
  const service = RegistryService.restore(journal, loaded.entries);
  const snapshot = service.snapshot();
  if (loaded.dropped > 0 || loaded.entries.length > 2 * snapshot.length + 100) {
    // A torn tail from a crash, or a journal mostly made of superseded changes: rewrite it compactly.
    if (loaded.dropped > 0) o.logger?.warn({ dropped: loaded.dropped }, 'schema registry: dropped unreadable journal lines');
    await journal.rewrite(snapshot);
  }

  const app = fastify({ logger: false, routerOptions: { maxParamLength: 2048 }, bodyLimit: 8 * 1024 * 1024 });
  if (o.logger) {
    const log = o.logger.child({ component: 'schema-registry' });
    app.addHook('onResponse', async (req, reply) => {
      log.debug({ method: req.method, url: req.url, status: reply.statusCode }, 'schema registry request');
    });
  }
  if (o.access) guardMutations(app, service, o.access);
  registerRoutes(app, service);

  const host = o.host ?? '127.0.0.1';
  try {
    await app.listen({ port: o.port ?? 8081, host });
  } catch (e) {
    await journal.close();
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (o.port ?? 8081);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  o.logger?.info({ port, host }, 'schema registry listening');

  let stopped: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    stop: () => {
      stopped ??= (async () => {
        await app.close();
        await journal.close();
      })();
      return stopped;
    },
  };
}
