/** `deltabroker entities list|show`: the entity configuration as the service validated it. */
import type { Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import { physicalNamesOf } from '../tenant/physical-names';
import { createLogger } from '../logger';
import { openEntityConfigSource } from '../composition';
import type { EntityConfig, EntityConfigSource } from '../tenant';
import { renderTable } from './output';

export const ENTITY_FORMATS = ['yaml', 'json'] as const;
export type EntityFormat = (typeof ENTITY_FORMATS)[number];

export function renderEntityList(configs: readonly EntityConfig[]): string {
  return renderTable(
    ['TENANT', 'ENTITY', 'VERSION', 'KEY', 'FIELDS', 'TOPIC', 'TABLE', 'INDEX', 'NOTIFICATIONS'],
    configs.map((c) => {
      const names = physicalNamesOf(c);
      return [
        c.tenant,
        c.entity,
        String(c.version),
        c.key.join(','),
        String(Object.keys(c.fields).length),
        names.topic,
        `${names.schema}.${names.table}`,
        names.index,
        c.notifications.methods.join(',') || '-',
      ];
    }),
  );
}

/** The normalised configuration of one entity; DB_NOT_FOUND when the tenant has no such entity. */
export async function showEntity(source: EntityConfigSource, tenant: string, entity: string): Promise<EntityConfig> {
  const config = await source.get(tenant, entity);
  if (!config)
    throw new DeltabrokerError('DB_NOT_FOUND', `tenant '${tenant}' has no entity '${entity}'; see deltabroker entities list`, {
      field: 'entity',
      stage: 'cli',
    });
  return config;
}

export const renderEntity = (config: EntityConfig, format: EntityFormat): string =>
  format === 'json' ? JSON.stringify(config, null, 2) : toYaml(config).trimEnd();

function parseFormat(value: string): EntityFormat {
  if ((ENTITY_FORMATS as readonly string[]).includes(value)) return value as EntityFormat;
  throw new DeltabrokerError('DB_VALIDATION', `--format must be one of ${ENTITY_FORMATS.join(', ')}`, { field: 'format', rule: 'enum', stage: 'cli' });
}

const print = (text: string): void => void process.stdout.write(`${text}\n`);
const source = (config: Config): EntityConfigSource => openEntityConfigSource(config, createLogger('warn'));

export function registerEntitiesCommands(program: Command, config: () => Config): void {
  const entities = program
    .command('entities')
    .description('entity configuration from the tenant API (DELTABROKER_TENANT_API_URL) or the entities folder (DELTABROKER_ENTITIES_DIR)');

  entities
    .command('list')
    .description('list configured entities with their key, topic, table and index')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--json', 'print the full configurations as JSON instead of a table')
    .action(async (o: { tenant?: string; json?: boolean }) => {
      const configs = await source(config()).list(o.tenant);
      print(o.json ? JSON.stringify(configs, null, 2) : renderEntityList(configs));
    });

  entities
    .command('show <tenant> <entity>')
    .description('print one entity configuration as validated (defaults filled in, roles resolved to field lists)')
    .option('--format <format>', `output format: ${ENTITY_FORMATS.join(' or ')}`, 'yaml')
    .action(async (tenant: string, entity: string, o: { format: string }) => {
      const format = parseFormat(o.format);
      print(renderEntity(await showEntity(source(config()), tenant, entity), format));
    });
}
