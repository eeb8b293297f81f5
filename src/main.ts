import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadDevIssuer, type DevIssuer } from './auth/dev-issuer';
import { createJwtVerifier } from './auth/jwt-verifier';
import type { Config } from './config';
import { EncryptionService } from './crypto/encryption-service';
import { openConfiguredHsm } from './crypto/hsm-bootstrap';
import type { Hsm } from './crypto/hsm/hsm-port';
import { KeyAliases } from './crypto/key-aliases';
import { Keyring } from './crypto/keyring';
import { MasterKey } from './crypto/master-key';
import { SessionStore } from './crypto/sessions';
import { buildHttpApp } from './http/app';
import { registerDispatchRoute } from './http/routes/dispatch';
import { registerHealthRoutes, type ReadinessCheck } from './http/routes/health';
import { registerKeyRoutes } from './http/routes/keys';
import { registerWhoamiRoute } from './http/routes/whoami';
import type { Logger } from './logger';
import { migrate } from './store/migrator';
import { openPgSqlClient } from './store/pg-sql-client';
import { openPgliteSqlClient } from './store/pglite-sql-client';
import type { SqlClient } from './store/sql-client';

/**
 * The composition root: the one place that picks adapters from configuration and wires services together.
 */
export interface Service {
  http: FastifyInstance;
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:8080 */
  url: string;
  sql: SqlClient;
  keyring: Keyring;
  aliases: KeyAliases;
  hsm: Hsm | undefined;
  crypto: EncryptionService;
  stop(): Promise<void>;
}

export async function openStore(config: Config, logger: Logger): Promise<SqlClient> {
  const sql = config.databaseUrl ? await openPgSqlClient(config.databaseUrl) : await openPgliteSqlClient(path.join(config.dataDir, 'pglite'));
  logger.info({ store: sql.kind }, 'relational store open');
  await migrate(sql, logger);
  return sql;
}

export function openMasterKey(config: Config): MasterKey {
  return config.crypto.masterKey ? MasterKey.fromBase64(config.crypto.masterKey) : MasterKey.loadOrCreate(config.dataDir);
}

export async function openDevIssuer(config: Config): Promise<DevIssuer | undefined> {
  return config.auth.devIssuer ? loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience) : undefined;
}

export async function startService(config: Config, logger: Logger): Promise<Service> {
  const closers: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const close of closers.reverse()) await close().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
  };
  try {
    const sql = await openStore(config, logger);
    closers.push(() => sql.close());
    const hsm = await openConfiguredHsm(config, logger);
    if (hsm) closers.push(() => hsm.close());
    const keyring = new Keyring(sql, openMasterKey(config), hsm, { rotateAfterEncryptions: config.crypto.rotateAfterEncryptions, logger });
    closers.push(() => keyring.close());
    const aliases = new KeyAliases(sql, hsm);
    const sessions = new SessionStore(sql, keyring, { ttlSeconds: config.crypto.sessionTtlSeconds, maxUses: config.crypto.sessionMaxUses });
    const crypto = new EncryptionService(keyring, sessions, aliases, hsm, config.crypto.maxPayloadBytes);

    const devIssuer = await openDevIssuer(config);
    if (devIssuer && config.mode === 'production') logger.warn('the development token issuer is enabled in production mode');
    const verifier = await createJwtVerifier({
      ...config.auth,
      ...(devIssuer && { devPublicKey: devIssuer.publicKey }),
    });

    const http = buildHttpApp({ logger, verifier, bodyLimitBytes: config.http.bodyLimitBytes });
    const checks: ReadinessCheck[] = [{ name: sql.kind, check: async () => void (await sql.query('select 1')) }];
    if (hsm) checks.push({ name: 'hsm', check: () => hsm.ping() });
    registerHealthRoutes(http, checks);
    registerDispatchRoute(http, crypto);
    registerKeyRoutes(http, keyring);
    registerWhoamiRoute(http);
    closers.push(() => http.close());
    const address = await http.listen({ host: config.http.host, port: config.http.port });
    logger.info({ url: address }, 'deltabroker is listening');
    return { http, url: address, sql, keyring, aliases, hsm, crypto, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
