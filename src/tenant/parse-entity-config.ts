/**
 * Validation of entity configuration input (a YAML file, or the tenant API's JSON) and its normalisation into
 * `EntityConfig`: defaults filled in, shorthands expanded, the field sets of roles resolved to explicit lists.
 * Parsing a normalised config again yields the same config. The input schema is entity-config-input.ts, the
 * rules across fields entity-config-rules.ts; every issue carries the rule it breaks.
 */
import type { z } from 'zod';
import { NOTIFICATION_METHODS, OPERATIONS, type EntityConfig, type FieldSpec, type RolePermissions } from './entity-config';
import { entityConfigInput, type EntityConfigInput, type FieldSetInput, type fieldSpecInput } from './entity-config-input';
import { checkReferences } from './entity-config-rules';
import { defaultNames } from './physical-names';
import { entityConfigInvalid } from './refusals';

function normaliseField(spec: z.output<typeof fieldSpecInput>): FieldSpec {
  const methods = spec.sensitive?.methods ?? (spec.personal === true ? ['aes' as const] : undefined);
  const sensitive = methods === undefined ? false : { methods: [...new Set(methods)] };
  const out: FieldSpec = { type: spec.type, required: spec.required, sensitive };
  if (spec.personal === true) out.personal = true;
  if (spec.description !== undefined) out.description = spec.description;
  return out;
}

function resolveFieldSet(set: FieldSetInput, all: string[]): string[] {
  if (set.only !== undefined) return all.filter((f) => set.only?.includes(f));
  return all.filter((f) => !set.except?.includes(f));
}

function normalise(c: EntityConfigInput): EntityConfig {
  const fields: Record<string, FieldSpec> = {};
  for (const [name, spec] of Object.entries(c.fields)) fields[name] = normaliseField(spec);
  const key = [...c.key];
  for (const k of key) {
    const spec = fields[k];
    if (spec !== undefined) spec.required = true;
  }
  const all = Object.keys(fields);
  const roles: Record<string, RolePermissions> = {};
  for (const [name, r] of Object.entries(c.roles)) {
    roles[name] = {
      operations: OPERATIONS.filter((o) => r.operations.includes(o)),
      write: resolveFieldSet(r.write, all),
      read: resolveFieldSet(r.read, all),
      writeDenied: r.writeDenied,
    };
  }
  const n = c.notifications;
  const defaults = defaultNames(c.tenant, c.entity);
  const out: EntityConfig = {
    tenant: c.tenant,
    entity: c.entity,
    version: c.version,
    ...(c.description !== undefined ? { description: c.description } : {}),
    key,
    fields,
    ...(c.subject !== undefined ? { subject: c.subject } : {}),
    persistence: {
      topic: c.persistence.topic ?? defaults.topic,
      table: c.persistence.table ?? defaults.table,
      index: c.persistence.index ?? defaults.index,
    },
    notifications: {
      methods: NOTIFICATION_METHODS.filter((m) => n.methods.includes(m)),
      globalTopic: n.globalTopic ?? defaults.globalTopic,
      localTopicPrefix: n.localTopicPrefix ?? defaults.localTopicPrefix,
    },
    roles,
  };
  return out;
}

const entityConfigSchema = entityConfigInput.superRefine(checkReferences).transform(normalise);

/** Formats zod issue paths as `fields.iban.sensitive.methods[0]`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out === '' ? '(root)' : out;
}

/** The rule a zod issue breaks: the one our rules name, else one per kind of zod check. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'custom') return typeof issue.params?.rule === 'string' ? issue.params.rule : 'invalid';
  return ZOD_RULES[issue.code] ?? issue.code.replace(/_/g, '-');
}

const ZOD_RULES: Partial<Record<z.core.$ZodIssue['code'], string>> = {
  invalid_type: 'type',
  invalid_value: 'enum',
  invalid_format: 'pattern',
  unrecognized_keys: 'unknown-key',
  too_big: 'max',
  too_small: 'min',
  invalid_union: 'type',
  invalid_key: 'key',
};

export interface ConfigIssue {
  /** Where in the configuration, e.g. `persistence.topic`. */
  path: string;
  /** The rule broken, e.g. `tenant-namespace`, `enum`, `unknown-key`. */
  rule: string;
  message: string;
}

export type ParseResult = { ok: true; config: EntityConfig } | { ok: false; issues: ConfigIssue[] };

export function safeParseEntityConfig(input: unknown): ParseResult {
  const r = entityConfigSchema.safeParse(input);
  if (r.success) return { ok: true, config: r.data };
  return { ok: false, issues: r.error.issues.map((i) => ({ path: formatIssuePath(i.path), rule: ruleOf(i), message: i.message })) };
}

/**
 * Validates and normalises an entity configuration. A wrong one throws DB_ENTITY_CONFIG_INVALID whose message
 * names every offending field path, e.g. `acme/merchant_account.yaml: fields.iban.type: Invalid option …`, and
 * whose details name the `source`, the first issue's `field` and `rule`, and every issue.
 */
export function parseEntityConfig(input: unknown, source = 'entity config'): EntityConfig {
  const r = safeParseEntityConfig(input);
  if (r.ok) return r.config;
  const text = r.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  const first = r.issues[0];
  throw entityConfigInvalid(`invalid entity configuration in ${source}: ${text}`, {
    source,
    field: first?.path ?? '(root)',
    rule: first?.rule ?? 'invalid',
    issues: r.issues,
  });
}
