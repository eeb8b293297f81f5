import os from 'node:os';
import type { Command } from 'commander';
import type { SubjectService } from '../broker/subjects/subject-service';
import { withSubjectService } from '../composition';
import type { Config } from '../config';
import { createToolLogger } from '../logger';

/** Runs `work` with a subject service on the configured (or running service's) store and write log. */
const withSubjects = <T>(config: Config, work: (subjects: SubjectService) => Promise<T>): Promise<T> => withSubjectService(config, createToolLogger(), work);

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function registerSubjectsCommands(program: Command, config: () => Config): void {
  const subjects = program.command('subjects').description('data subjects: erase one (crypto-shredding), show what is held of one');
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
    .action(async (subject: string, o: { tenant: string }) =>
      withSubjects(config(), async (service) => print(await service.show(operator(o.tenant, undefined), subject))),
    );
}
