/**
 * The input schema of an entity configuration (a YAML file, or the tenant API's JSON): field by field, with the
 * shorthands expanded before validation. The rules across fields are in entity-config-rules.ts; the
 * normalisation into `EntityConfig` in parse-entity-config.ts.
 */
import { z } from 'zod';
import { MAX_IDENTIFIER_LENGTH } from '../store/sql-identifier';
import {
  FIELD_NAME,
  FIELD_TYPES,
  MAX_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
  NAME_PATTERN,
  NOTIFICATION_METHODS,
  OPERATIONS,
  SENSITIVE_METHODS,
  TOPIC_NAME,
  WRITE_DENIED,
} from './entity-config';

const NAME_RULE = 'lowercase words of letters and digits joined by single underscores, starting with a letter';
const lowerName = (what: string, max: number) =>
  z.string().max(max, `${what} is longer than ${max} characters`).regex(NAME_PATTERN, `${what} must be ${NAME_RULE}`);
export const fieldName = z
  .string()
  .max(MAX_IDENTIFIER_LENGTH, `field name is longer than ${MAX_IDENTIFIER_LENGTH} characters`)
  .regex(FIELD_NAME, 'field name must be an identifier starting with a letter (letters, digits, _)');
const topicName = z
  .string()
  .max(MAX_TOPIC_LENGTH)
  .regex(TOPIC_NAME, 'topic name may only hold letters, digits, ".", "_" and "-"')
  .refine((t) => t !== '.' && t !== '..', { message: 'topic name may not be "." or ".."', params: { rule: 'pattern' } });

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

export const fieldSpecInput = z.preprocess(
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
    .refine((s) => (s.only === undefined) !== (s.except === undefined), {
      message: "expected '*', a list of field names or {except: [...]}",
      params: { rule: 'type' },
    }),
);
export type FieldSetInput = z.output<typeof fieldSetInput>;

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

export const entityConfigInput = z.strictObject({
  tenant: lowerName('tenant', MAX_NAME_LENGTH),
  entity: lowerName('entity', MAX_NAME_LENGTH),
  version: z.number().int().positive().default(1),
  description: z.string().optional(),
  key: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(fieldName, expected('a field name or a list of them')).min(1)),
  fields: z
    .record(z.string(), fieldSpecInput)
    .refine((f) => Object.keys(f).length > 0, { message: 'at least one field is required', params: { rule: 'required' } }),
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
export type EntityConfigInput = z.output<typeof entityConfigInput>;
