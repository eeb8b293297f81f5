/**
 * The permission model, as pure functions over an EntityConfig and the caller's roles.
 *
 * - Several roles union their rights: an operation is allowed when any role allows it; a field is writable
 *   (readable) when any role that allows the operation may write (read) it.
 * - A role the entity does not configure has no rights at all.
 * - Key fields identify the record: a caller allowed to do a write operation may always send them.
 * - A payload field no granting role may write is stripped when every granting role says
 *   `writeDenied: strip`, and refused otherwise (refuse wins: the safer reading of a mixed set of roles).
 */
import { DeltabrokerError } from '../errors';
import type { EntityConfig, Operation, RolePermissions, WriteDenied } from './entity-config';
import { STAGES } from '../log/topology/stages';

export interface Rights {
  readonly operation: Operation;
  /** The caller's roles that are configured and allow the operation. */
  readonly granting: readonly string[];
  readonly allowed: boolean;
  readonly writable: ReadonlySet<string>;
  readonly readable: ReadonlySet<string>;
  readonly writeDenied: WriteDenied;
}

/**
 * Rights already worked out, per configuration object (sources hand out the same object while it is unchanged)
 * and per roles and operation: stages 5 and 6 ask for every delta, and each answer built two sets.
 */
const known = new WeakMap<EntityConfig, Map<string, Rights>>();
const KNOWN_ROLE_SETS = 256;

function roleOf(config: EntityConfig, role: string): RolePermissions | undefined {
  return Object.hasOwn(config.roles, role) ? config.roles[role] : undefined;
}

/** What the union of `roles` may do for `operation` on this entity. */
export function rightsFor(config: EntityConfig, roles: readonly string[], operation: Operation): Rights {
  let byRoles = known.get(config);
  if (byRoles === undefined) known.set(config, (byRoles = new Map<string, Rights>()));
  const id = `${operation}\0${roles.join('\0')}`;
  let rights = byRoles.get(id);
  if (rights === undefined) {
    if (byRoles.size >= KNOWN_ROLE_SETS) byRoles.clear(); // roles come from tokens: bounded, whatever they hold
    byRoles.set(id, (rights = workOutRights(config, roles, operation)));
  }
  return rights;
}

function workOutRights(config: EntityConfig, roles: readonly string[], operation: Operation): Rights {
  const granting: string[] = [];
  const writable = new Set<string>();
  const readable = new Set<string>();
  let writeDenied: WriteDenied = 'strip';
  for (const name of new Set(roles)) {
    const role = roleOf(config, name);
    if (role === undefined || !role.operations.includes(operation)) continue;
    granting.push(name);
    for (const f of role.write) writable.add(f);
    for (const f of role.read) readable.add(f);
    if (role.writeDenied === 'refuse') writeDenied = 'refuse';
  }
  const allowed = granting.length > 0;
  if (!allowed) writeDenied = 'refuse';
  return { operation, granting, allowed, writable, readable, writeDenied };
}

export const mayPerform = (config: EntityConfig, roles: readonly string[], operation: Operation): boolean => rightsFor(config, roles, operation).allowed;

const forbiddenOperation = (config: EntityConfig, roles: readonly string[], operation: Operation, stage: string) =>
  new DeltabrokerError('DB_FORBIDDEN', `roles [${roles.join(', ')}] may not ${operation} ${config.tenant}/${config.entity}`, {
    field: 'dispatch.operation',
    rule: 'operation',
    stage,
    operation,
    roles: [...roles],
  });

/** Pipeline stage 5: throws DB_FORBIDDEN (stage `permission`) unless some role allows the operation. */
export function assertMayPerform(config: EntityConfig, roles: readonly string[], operation: Operation): void {
  if (!mayPerform(config, roles, operation)) throw forbiddenOperation(config, roles, operation, STAGES.permission);
}

export interface FilteredPayload {
  payload: Record<string, unknown>;
  /** Fields removed because no granting role may write them (in payload order). */
  stripped: string[];
}

/**
 * Pipeline stage 6: restricts a write payload to the fields the roles may write. Returns the input itself when
 * every field may be written, else a new object (the input is never modified), and the stripped field names, or throws
 * `DeltabrokerError('DB_FORBIDDEN', …, { field, rule: 'field-not-writable', stage: 'permission-filter' })`
 * naming the first refused field (`fields` lists all of them).
 */
export function applyWriteRestrictions(
  config: EntityConfig,
  roles: readonly string[],
  operation: Operation,
  payload: Readonly<Record<string, unknown>>,
): FilteredPayload {
  const rights = rightsFor(config, roles, operation);
  if (!rights.allowed) throw forbiddenOperation(config, roles, operation, STAGES.permissionFilter);
  const denied: string[] = [];
  const fields = Object.keys(payload);
  for (const field of fields) if (!rights.writable.has(field) && !config.key.includes(field)) denied.push(field);
  // Nearly always every field may be written: the payload passes as it is, not copied.
  if (denied.length === 0) return { payload, stripped: denied };
  if (rights.writeDenied === 'refuse') {
    const first = denied[0] as string;
    throw new DeltabrokerError(
      'DB_FORBIDDEN',
      `roles [${rights.granting.join(', ')}] may not write field${denied.length > 1 ? 's' : ''} ${denied.map((f) => `"${f}"`).join(', ')} of ${config.tenant}/${config.entity}`,
      { field: first, fields: denied, rule: 'field-not-writable', stage: STAGES.permissionFilter, roles: rights.granting },
    );
  }
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!denied.includes(field)) Object.defineProperty(out, field, { value: payload[field], enumerable: true, writable: true, configurable: true });
  }
  return { payload: out, stripped: denied };
}

/**
 * The fields the roles may see in `read` (RQL) or `search` results. Empty when no role allows the operation.
 * Configured-field order is kept when iterated.
 */
export function readableFields(config: EntityConfig, roles: readonly string[], operation: Extract<Operation, 'read' | 'search'> = 'read'): Set<string> {
  const { readable } = rightsFor(config, roles, operation);
  return new Set(Object.keys(config.fields).filter((f) => readable.has(f)));
}

/** A copy of `doc` holding only readable fields (for search hits and other whole documents). */
export function projectReadable(doc: Readonly<Record<string, unknown>>, readable: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (readable.has(k)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
