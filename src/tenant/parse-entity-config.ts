/**
 * Validation of entity configuration input (a YAML file, or the tenant API's JSON) with zod, and its
 * normalisation into `EntityConfig`: defaults filled in, shorthands expanded, the field sets of roles resolved
 * to explicit lists. Parsing a normalised config again yields the same config.
 */
import { z } from 'zod';
import { DeltabrokerError } from '../errors';
import { MAX_IDENTIFIER_LENGTH } from '../store/sql-identifier';
import {
  FIELD_NAME,
  FIELD_TYPES,
  MAX_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
  NAME_PATTERN,
  NOTIFICATION_METHODS,
  OPERATIONS,
  ROLE_NAME,
  SENSITIVE_METHODS,
  TOPIC_NAME,
  WRITE_DENIED,
  type EntityConfig,
  type FieldSpec,
  type RolePermissions,
} from './entity-config';
import { defaultNames, maxIndexNameLength, tenantTopicPrefix } from './physical-names';
import { STAGES } from '../log/topology/stages';

const NAME_RULE = 'lowercase words of letters and digits joined by single underscores, starting with a letter';
const lowerName = (what: string, max: number) =>
  z.string().max(max, `${what} is longer than ${max} characters`).regex(NAME_PATTERN, `${what} must be ${NAME_RULE}`);
const fieldName = z
  .string()
  .max(MAX_IDENTIFIER_LENGTH, `field name is longer than ${MAX_IDENTIFIER_LENGTH} characters`)
  .regex(FIELD_NAME, 'field name must be an identifier starting with a letter (letters, digits, _)');
const topicName = z
  .string()
  .max(MAX_TOPIC_LENGTH)
  .regex(TOPIC_NAME, 'topic name may only hold letters, digits, ".", "_" and "-"')
  .refine((t) => t !== '.' && t !== '..', 'topic name may not be "." or ".."');

// ---------------------------------------------------------------------------------------------------------
// Input schema

/**
 * Shorthands are expanded before validation (rather than with unions), so that an error points at the exact
 * path and says what was expected instead of zod's "Invalid input" for a failed union.
 */
const expandField = (v: unknown): unknown => {
  if (typeof v === 'string') return { type: v };
  if (v !== null && typeof v === 'object' && 'sensitive' in v) {
    const { sensitive, ...rest } = v;
    if (sensitive === false) return rest;
    // A personal field is sealed under an AES subject key, so `sensitive: true` means AES there.
    if (sensitive === true) return { ...rest, sensitive: { methods: 'personal' in rest && rest.personal === true ? ['aes'] : ['aes', 'hsm'] } };
  }
  return v;
};
const expandFieldSet = (v: unknown): unknown => (v === '*' ? { except: [] } : Array.isArray(v) ? { only: v } : v);
const expandAll = (v: unknown): unknown => (v === '*' ? [...OPERATIONS] : v);
const expandList =
  (key: string) =>
  (v: unknown): unknown =>
    Array.isArray(v) ? { [key]: v } : v;
const expected = (what: string) => ({
  error: (issue: { code: string; input?: unknown }) =>
    issue.code === 'invalid_type' ? `expected ${what}, received ${JSON.stringify(issue.input) ?? String(issue.input)}` : undefined,
});

const fieldSpecInput = z.preprocess(
  expandField,
  z.strictObject(
    {
      type: z.enum(FIELD_TYPES),
      required: z.boolean().default(false),
      sensitive: z.strictObject({ methods: z.array(z.enum(SENSITIVE_METHODS)).min(1) }, expected('true, false or {methods: [aes, hsm, …]}')).optional(),
      personal: z.boolean().optional(),
      description: z.string().optional(),
    },
    expected(`a field type (${FIELD_TYPES.join(', ')}) or {type, required, sensitive}`),
  ),
);

/** `*` (every field), a list (only those), or `{except: [...]}` (every field but those). */
const fieldSetInput = z.preprocess(
  expandFieldSet,
  z
    .strictObject({ only: z.array(fieldName).optional(), except: z.array(fieldName).optional() }, expected("'*', a list of field names or {except: [...]}"))
    .refine((s) => (s.only === undefined) !== (s.except === undefined), "expected '*', a list of field names or {except: [...]}"),
);
type FieldSetInput = z.output<typeof fieldSetInput>;

const roleInput = z.strictObject({
  operations: z.preprocess(expandAll, z.array(z.enum(OPERATIONS), expected(`'*' or a list of ${OPERATIONS.join(', ')}`))),
  write: fieldSetInput.default({ except: [] }),
  read: fieldSetInput.default({ except: [] }),
  writeDenied: z.enum(WRITE_DENIED).default('refuse'),
});

const notificationsInput = z.preprocess(
  expandList('methods'),
  z.strictObject(
    {
      methods: z.array(z.enum(NOTIFICATION_METHODS)),
      globalTopic: topicName.optional(),
      localTopicPrefix: topicName.optional(),
    },
    expected('a list of global, local or {methods, globalTopic, localTopicPrefix}'),
  ),
);

const entityConfigInput = z.strictObject({
  tenant: lowerName('tenant', MAX_NAME_LENGTH),
  entity: lowerName('entity', MAX_NAME_LENGTH),
  version: z.number().int().positive().default(1),
  description: z.string().optional(),
  key: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(fieldName, expected('a field name or a list of them')).min(1)),
  fields: z.record(z.string(), fieldSpecInput).refine((f) => Object.keys(f).length > 0, 'at least one field is required'),
  subject: fieldName.optional(),
  persistence: z
    .strictObject({
      topic: topicName.optional(),
      table: lowerName('table', MAX_IDENTIFIER_LENGTH).optional(),
      index: lowerName('index', MAX_IDENTIFIER_LENGTH).optional(),
    })
    .default({}),
  notifications: notificationsInput.default({ methods: [] }),
  roles: z.record(z.string(), roleInput).default({}),
});
type EntityConfigInput = z.output<typeof entityConfigInput>;

function checkReferences(c: EntityConfigInput, ctx: z.RefinementCtx): void {
  // Record keys are checked here: zod reports a bad record key only as "Invalid key in record".
  const names = Object.keys(c.fields);
  for (const n of names) {
    const r = fieldName.safeParse(n);
    if (!r.success)
      ctx.addIssue({ code: 'custom', path: ['fields', n], message: `${JSON.stringify(n)}: ${r.error.issues[0]?.message ?? 'invalid field name'}` });
  }
  for (const role of Object.keys(c.roles)) {
    if (!ROLE_NAME.test(role)) {
      ctx.addIssue({
        code: 'custom',
        path: ['roles', role],
        message: `${JSON.stringify(role)}: role name may hold letters, digits, "_", ".", ":" and "-", not starting with "_", ".", ":" or "-"`,
      });
    }
  }
  const known = new Set(names);
  const lower = new Map<string, string>();
  for (const n of names) {
    const other = lower.get(n.toLowerCase());
    if (other !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['fields', n], message: `field "${n}" differs from "${other}" only by case` });
    }
    lower.set(n.toLowerCase(), n);
  }
  const keys = c.key;
  keys.forEach((k, i) => {
    const path = ['key', i];
    const s = known.has(k) ? c.fields[k] : undefined;
    if (s === undefined) {
      ctx.addIssue({ code: 'custom', path, message: `key field "${k}" is not declared under fields` });
      return;
    }
    if (s.type !== 'string' && s.type !== 'integer') {
      ctx.addIssue({ code: 'custom', path, message: `key field "${k}" must be of type string or integer, not ${s.type}` });
    }
    if (s.sensitive !== undefined) {
      ctx.addIssue({ code: 'custom', path, message: `key field "${k}" may not be sensitive (keys travel in clear as message keys)` });
    }
  });
  if (new Set(keys).size !== keys.length) ctx.addIssue({ code: 'custom', path: ['key'], message: 'key fields repeat' });
  for (const [name, s] of Object.entries(c.fields)) {
    if (s.sensitive !== undefined && s.type !== 'string') {
      ctx.addIssue({
        code: 'custom',
        path: ['fields', name, 'sensitive'],
        message: `sensitive field "${name}" must be of type string (it holds a ciphertext)`,
      });
    }
  }
  checkPersonal(c, ctx, known);
  for (const [role, r] of Object.entries(c.roles)) {
    for (const which of ['write', 'read'] as const) {
      const set = r[which];
      const list = set.only ?? set.except ?? [];
      const base = ['roles', role, which, ...(set.only === undefined ? ['except'] : [])];
      list.forEach((f, i) => {
        if (!known.has(f)) ctx.addIssue({ code: 'custom', path: [...base, i], message: `field "${f}" is not declared under fields` });
      });
    }
  }
  const methods = c.notifications.methods;
  if (new Set(methods).size !== methods.length) {
    ctx.addIssue({ code: 'custom', path: ['notifications'], message: 'notification methods repeat' });
  }
  checkNamespace(c, ctx);
}

/** Personal fields need a subject field, are strings under AES subject keys, and are never keys. */
function checkPersonal(c: EntityConfigInput, ctx: z.RefinementCtx, known: Set<string>): void {
  const personal = Object.entries(c.fields).filter(([, s]) => s.personal === true);
  if (c.subject !== undefined) {
    const s = known.has(c.subject) ? c.fields[c.subject] : undefined;
    if (s === undefined) ctx.addIssue({ code: 'custom', path: ['subject'], message: `subject field "${c.subject}" is not declared under fields` });
    else if (s.type !== 'string')
      ctx.addIssue({ code: 'custom', path: ['subject'], message: `subject field "${c.subject}" must be of type string (a subject id)` });
    else if (s.sensitive !== undefined || s.personal === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['subject'],
        message: `subject field "${c.subject}" may not be sensitive or personal (it names the subject's key, in clear)`,
      });
    }
  } else if (personal.length > 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['subject'],
      message: `personal fields (${personal.map(([n]) => n).join(', ')}) need a subject field naming the data subject`,
    });
  }
  for (const [name, s] of personal) {
    if (c.key.includes(name))
      ctx.addIssue({ code: 'custom', path: ['fields', name, 'personal'], message: `key field "${name}" may not be personal (record keys are never erased)` });
    if (s.type !== 'string')
      ctx.addIssue({ code: 'custom', path: ['fields', name, 'personal'], message: `personal field "${name}" must be of type string (it holds a ciphertext)` });
    const methods = s.sensitive?.methods ?? [];
    if (methods.some((m) => !m.startsWith('aes'))) {
      ctx.addIssue({
        code: 'custom',
        path: ['fields', name, 'sensitive', 'methods'],
        message: `personal field "${name}" is sealed under an AES subject key: only aes methods`,
      });
    }
  }
}

/** A configuration names objects only inside its tenant's namespace (see physical-names.ts). */
function checkNamespace(c: EntityConfigInput, ctx: z.RefinementCtx): void {
  const prefix = tenantTopicPrefix(c.tenant);
  const topics: [string[], string | undefined][] = [
    [['persistence', 'topic'], c.persistence.topic],
    [['notifications', 'globalTopic'], c.notifications.globalTopic],
    [['notifications', 'localTopicPrefix'], c.notifications.localTopicPrefix],
  ];
  for (const [path, topic] of topics) {
    if (topic !== undefined && !topic.startsWith(prefix)) {
      ctx.addIssue({ code: 'custom', path, message: `topic "${topic}" is outside the tenant's namespace: it must start with "${prefix}"` });
    }
  }
  const maxIndex = maxIndexNameLength(c.tenant);
  if (c.persistence.index !== undefined && c.persistence.index.length > maxIndex) {
    ctx.addIssue({
      code: 'custom',
      path: ['persistence', 'index'],
      message: `index name is longer than ${maxIndex} characters (tenant "${c.tenant}" and "__" come before it)`,
    });
  }
}

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

export interface ConfigIssue {
  path: string;
  message: string;
}

export type ParseResult = { ok: true; config: EntityConfig } | { ok: false; issues: ConfigIssue[] };

export function safeParseEntityConfig(input: unknown): ParseResult {
  const r = entityConfigSchema.safeParse(input);
  if (r.success) return { ok: true, config: r.data };
  return { ok: false, issues: r.error.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message })) };
}

/**
 * Validates and normalises an entity configuration. A wrong one throws a `DeltabrokerError` whose message
 * names every offending field path, e.g. `acme/merchant_account.yaml: fields.iban.type: Invalid option …`.
 * `code` defaults to DB_INTERNAL (a broken configuration is the operator's problem, not the caller's).
 */
export function parseEntityConfig(input: unknown, source = 'entity config', code: 'DB_INTERNAL' | 'DB_DEPENDENCY_UNAVAILABLE' = 'DB_INTERNAL'): EntityConfig {
  const r = safeParseEntityConfig(input);
  if (r.ok) return r.config;
  const text = r.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new DeltabrokerError(code, `invalid entity configuration in ${source}: ${text}`, {
    field: r.issues[0]?.path,
    rule: 'entity-config',
    stage: STAGES.entityConfig,
    source,
    issues: r.issues,
  });
}
