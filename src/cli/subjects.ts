import os from 'node:os';
import type { Command } from 'commander';
import { SubjectService } from '../broker/subjects/subject-service';
import type { Config } from '../config';
import { Keyring } from '../crypto/keyring';
import { SubjectKeys } from '../crypto/subject-keys';
import { loadSchemas } from '../log';
import { createLogger } from '../logger';
import { openEntityConfigSource, openMasterKey, openStore, openWriteLog } from '../main';

/** Runs `work` with a subject service on the configured (or running service's) store and write log. */
async function withSubjects<T>(config: Config, work: (subjects: SubjectService) => Promise<T>): Promise<T> {
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const closers: (() => Promise<void>)[] = [];
  try {
    const { sql } = await openStore(config, logger, 'tool');
    closers.push(() => sql.close());
    const keyring = new Keyring(sql, openMasterKey(config), undefined, { rotateAfterEncryptions: config.crypto.rotateAfterEncryptions, logger });
    closers.push(() => keyring.close());
    const { log } = await openWriteLog(config, logger, closers, 'tool');
    const entities = openEntityConfigSource(config, logger);
    return await work(new SubjectService({ keys: new SubjectKeys(sql, keyring), entities, log, schemas: loadSchemas(), sql, logger }));
  } finally {
    for (const close of closers.reverse()) await close().catch((e: unknown) => logger.warn({ err: e }, 'closing failed'));
  }
}

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function registerSubjectsCommands(program: Command, config: () => Config): void {
  const subjects = program.command('subjects').description("data subjects: erase one (crypto-shredding), show what is held of one");
  const operator = (tenant: string, by: string | undefined) => ({ user: by ?? `cli:${os.userInfo().username}`, tenant, roles: ['admin', 'eraser'] });

  subjects
    .command('erase <subject>')
    .description("destroy the subject's key and publish SubjectErased; its personal fields read as [erased] everywhere")
    .option('--tenant <tenant>', 'tenant', 'acme')
    .option('--by <user>', 'who erases (recorded in the erasure record)')
    .action(async (subject: string, o: { tenant: string; by?: string }) =>
      withSubjects(config(), async (service) => print(await service.erase(operator(o.tenant, o.by), subject, null))),
    );

  subjects
    .command('show <subject>')
    .description('the entities and records holding the subject data, its key versions, and whether it is erased')
    .option('--tenant <tenant>', 'tenant', 'acme')
    .action(async (subject: string, o: { tenant: string }) => withSubjects(config(), async (service) => print(await service.show(operator(o.tenant, undefined), subject))));
}
