/**
 * The configuration reference, made from the schema: one row per setting with its environment variable, its key in
 * the DELTABROKER_CONFIG file, its default and its meaning (the schema's `description`, and `absent` for what an
 * unset optional setting means). docs/configuration.md holds the output between two markers;
 * `npm run docs:config` rewrites it there, and a unit test fails when the page and the schema differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigSchema } from './config';
import { ENV_KEYS } from './config-environment';

export const CONFIGURATION_PAGE = path.resolve(__dirname, '../docs/configuration.md');
export const BEGIN_MARKER = '<!-- BEGIN GENERATED: npm run docs:config (src/config-reference.ts) -->';
export const END_MARKER = '<!-- END GENERATED -->';

export interface SettingRow {
  readonly env: string | undefined;
  readonly key: string;
  readonly default: string;
  readonly meaning: string;
}

/** The zod internals this walk reads: a wrapper's inner schema, a pipe's input, an object's shape, a default. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  defaultValue?: unknown;
  shape?: Record<string, z.ZodType>;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

interface SettingMeta {
  description?: string;
  absent?: string;
}

/** The schema's leaves in declaration order, with what their wrappers (default, optional, pipe) say. */
function* leaves(schema: z.ZodType, key: string[]): Generator<{ key: string[]; meta: SettingMeta; defaultValue: unknown }> {
  let meta: SettingMeta = {};
  let defaultValue: unknown;
  let node: z.ZodType | undefined = schema;
  while (node) {
    meta = { ...(z.globalRegistry.get(node) as SettingMeta | undefined), ...meta };
    const def = defOf(node);
    if (def.type === 'default') defaultValue = def.defaultValue;
    if (def.type === 'object' && def.shape) {
      for (const [name, child] of Object.entries(def.shape)) yield* leaves(child, [...key, name]);
      return;
    }
    node = def.innerType ?? def.in;
  }
  yield { key, meta, defaultValue };
}

const code = (text: string): string => `\`${text}\``;

/** Every setting of the schema, in its order. Throws on a setting without a description, so none goes undocumented. */
export function settingRows(): SettingRow[] {
  const envOf = new Map(Object.entries(ENV_KEYS).map(([env, keys]) => [keys.join('.'), env]));
  return [...leaves(ConfigSchema, [])].map(({ key, meta, defaultValue }) => {
    const dotted = key.join('.');
    if (!meta.description) throw new Error(`configuration setting ${dotted} has no description in src/config.ts`);
    const shown = defaultValue !== undefined ? code(String(defaultValue)) : (meta.absent ?? 'unset');
    return { env: envOf.get(dotted), key: dotted, default: shown, meaning: meta.description };
  });
}

/** The markdown table of docs/configuration.md's generated block. */
export function configurationTable(): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const lines = ['| environment | config file key | default | meaning |', '|---|---|---|---|'];
  for (const row of settingRows()) {
    lines.push(`| ${row.env ? code(row.env) : ''} | ${code(row.key)} | ${cell(row.default)} | ${cell(row.meaning)} |`);
  }
  return lines.join('\n');
}

/** The page with its generated block replaced by `table`. */
export function withGeneratedTable(page: string, table: string = configurationTable()): string {
  const begin = page.indexOf(BEGIN_MARKER);
  const end = page.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`${CONFIGURATION_PAGE} lacks the markers ${BEGIN_MARKER} … ${END_MARKER}`);
  return `${page.slice(0, begin + BEGIN_MARKER.length)}\n${table}\n${page.slice(end)}`;
}

if (require.main === module) {
  writeFileSync(CONFIGURATION_PAGE, withGeneratedTable(readFileSync(CONFIGURATION_PAGE, 'utf8')));
  process.stdout.write(`wrote the settings table of ${CONFIGURATION_PAGE}\n`);
}
