/**
 * Entity configuration: what the tenant API holds for one (tenant, entity) pair and the write pipeline looks
 * up on each write. Every field is documented in src/tenant/README.md; the shipped example is
 * config/entities/acme/merchant_account.yaml. This module holds the normalised shape and small helpers over
 * it; parse-entity-config.ts turns a YAML file or tenant API answer into it.
 */

export const OPERATIONS = ['create', 'read', 'search', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];
export const WRITE_OPERATIONS: readonly Operation[] = ['create', 'update', 'delete'];

export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'timestamp', 'object'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * Encryption methods a sensitive field may name. An alias (`aes`, `hsm`) accepts every version of its family,
 * an explicit version (`aes256skv1`, `hsmv1`) only itself; see `acceptsMethod`.
 */
export const SENSITIVE_METHODS = ['aes', 'aes256skv1', 'hsm', 'hsmv1'] as const;
export type SensitiveMethod = (typeof SENSITIVE_METHODS)[number];
const METHOD_FAMILIES: Record<string, string> = { aes: 'aes', hsm: 'hsm' };

export const NOTIFICATION_METHODS = ['global', 'local'] as const;
export type NotificationMethod = (typeof NOTIFICATION_METHODS)[number];

export const WRITE_DENIED = ['strip', 'refuse'] as const;
export type WriteDenied = (typeof WRITE_DENIED)[number];

export interface FieldSpec {
  type: FieldType;
  required: boolean;
  /** `false`, or the encryption methods a value of this field must have been produced with. */
  sensitive: false | { methods: SensitiveMethod[] };
  /**
   * Personal data of the record's data subject: the value must be a ciphertext under that subject's key
   * (`subject.<id>`), so erasing the subject makes it unreadable everywhere. Implies `sensitive` (AES).
   */
  personal?: true;
  description?: string;
}

export interface RolePermissions {
  operations: Operation[];
  /** Fields the role may write (explicit list, resolved from `*` / `{except}`). */
  write: string[];
  /** Fields the role may read (explicit list). */
  read: string[];
  /** What happens to a payload field the role may not write. */
  writeDenied: WriteDenied;
}

export interface EntityConfig {
  tenant: string;
  entity: string;
  version: number;
  description?: string;
  key: string[];
  fields: Record<string, FieldSpec>;
  /** The field whose value identifies the record's data subject (required when a field is `personal`). */
  subject?: string;
  persistence: { topic: string; table: string; index: string };
  notifications: { methods: NotificationMethod[]; globalTopic: string; localTopicPrefix: string };
  roles: Record<string, RolePermissions>;
}

// ---------------------------------------------------------------------------------------------------------
// Name rules

/**
 * Tenant and entity names: lowercase words of letters and digits joined by single underscores, 1-30
 * characters. Physical names are built from them (src/tenant/physical-names.ts); the rule keeps `__`, `.` and
 * `-` free to separate their parts, and 30 characters leave room for a tenant prefix within Postgres's 63.
 */
export const NAME_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 30;
/** Field names are column names; a leading underscore is reserved for system columns (`_doc`, `_version`). */
export const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Role names come from tokens; no leading underscore, so `__proto__` can never be one. */
export const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
/** Kafka's legal topic characters. */
export const TOPIC_NAME = /^[A-Za-z0-9._-]+$/;
export const MAX_TOPIC_LENGTH = 249;

export const isTenantName = (s: unknown): s is string => typeof s === 'string' && s.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(s);
export const isEntityName = isTenantName;

// ---------------------------------------------------------------------------------------------------------
// Small helpers over a config

/** The spec of a configured field, or undefined (own properties only: `constructor` is not a field). */
export function fieldSpec(config: EntityConfig, name: string): FieldSpec | undefined {
  return Object.hasOwn(config.fields, name) ? config.fields[name] : undefined;
}

/** Does a ciphertext made with the explicit method `method` satisfy the field's `sensitive.methods`? */
export function acceptsMethod(spec: FieldSpec, method: string): boolean {
  if (spec.sensitive === false) return false;
  return spec.sensitive.methods.some((m) => {
    const family = METHOD_FAMILIES[m];
    return m === method || (family !== undefined && method.startsWith(family));
  });
}

/** Names of the fields that must arrive encrypted. */
export const sensitiveFields = (config: EntityConfig): string[] =>
  Object.entries(config.fields)
    .filter(([, s]) => s.sensitive !== false)
    .map(([n]) => n);

/** Names of the fields holding personal data of the record's data subject. */
export const personalFields = (config: EntityConfig): string[] =>
  Object.entries(config.fields)
    .filter(([, s]) => s.personal === true)
    .map(([n]) => n);

/**
 * What a personal field reads as once its data subject is erased, in tables, search documents and replays.
 * It is no ciphertext, so nothing tries to decrypt it.
 */
export const ERASED_MARKER = '[erased]';
