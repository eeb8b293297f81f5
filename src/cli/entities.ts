/**
 * `deltabroker entities list|check|show`: the entity configuration as the service validates it, read from the
 * same source (the entities folder or the tenant API), refused configurations included with their reason.
 */
import type { Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import { physicalNamesOf } from '../tenant/physical-names';
import { createToolLogger } from '../logger';
import { openEntityConfigSource } from '../composition';
import type { EntityConfig, EntityConfigSource, EntityListing, RefusedEntityConfig } from '../tenant';
import { renderTable } from './output';

/** The exit code of `entities check` when a configuration is refused (1 is any other failure of the command). */
export const ENTITIES_REFUSED_EXIT_CODE = 2;

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

/** The refused configurations: each entity, where its configuration comes from, the field, the rule and why. */
export function renderRefusedList(refused: readonly RefusedEntityConfig[]): string {
  return renderTable(
    ['TENANT', 'ENTITY', 'SOURCE', 'FIELD', 'RULE', 'REASON'],
    refused.map((r) => [r.tenant, r.entity, r.source, r.field, r.rule, r.message]),
  );
}

/** The served entities' table, then, when there are any, the refused ones' under a line that says so. */
export function renderListing(listing: EntityListing): string {
  const served = renderEntityList(listing.configs);
  if (listing.refused.length === 0) return served;
  return `${served}\n\nrefused (each answers DB_ENTITY_CONFIG_INVALID; every other entity serves):\n${renderRefusedList(listing.refused)}`;
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
const source = (config: Config): EntityConfigSource => openEntityConfigSource(config, createToolLogger());

export function registerEntitiesCommands(program: Command, config: () => Config): void {
  const entities = program
    .command('entities')
    .description('entity configuration from the tenant API (DELTABROKER_TENANT_API_URL) or the entities folder (DELTABROKER_ENTITIES_DIR)');

  entities
    .command('list')
    .description('list configured entities with their key, topic, table and index, and the refused ones with the reason')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--json', 'print {entities, refused} as JSON (the full configurations) instead of tables')
    .action(async (o: { tenant?: string; json?: boolean }) => {
      const listing = await source(config()).list(o.tenant);
      print(o.json ? JSON.stringify({ entities: listing.configs, refused: listing.refused }, null, 2) : renderListing(listing));
    });

  entities
    .command('check')
    .description(`validate every entity configuration as the service would; exits ${ENTITIES_REFUSED_EXIT_CODE} when any is refused`)
    .option('--tenant <tenant>', 'only this tenant')
    .action(async (o: { tenant?: string }) => {
      const { configs, refused } = await source(config()).list(o.tenant);
      if (refused.length === 0) return print(`${configs.length} entity configuration${configs.length === 1 ? '' : 's'} valid`);
      print(renderRefusedList(refused));
      process.exitCode = ENTITIES_REFUSED_EXIT_CODE;
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
