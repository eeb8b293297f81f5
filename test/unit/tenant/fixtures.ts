import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseEntityConfig, type EntityConfig } from '../../../src/tenant';

export const CONFIG_DIR = path.resolve(__dirname, '../../../config/entities');

/** The shipped default configuration, as raw YAML data and parsed. */
export const defaultConfigInput = (): Record<string, unknown> =>
  parse(readFileSync(path.join(CONFIG_DIR, 'acme/merchant_account.yaml'), 'utf8')) as Record<string, unknown>;
export const defaultConfig = (): EntityConfig => parseEntityConfig(defaultConfigInput());

/** A small valid input, for tests that change one thing. */
export const minimalInput = (): Record<string, unknown> => ({
  tenant: 't1',
  entity: 'thing',
  key: 'id',
  fields: { id: 'string', label: { type: 'string', required: true } },
});
