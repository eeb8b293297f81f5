import { DeltabrokerError } from '../errors';
import type { Principal } from './principal';

/**
 * Which roles may use which encryption-dispatch operation. Decrypt needs its own role (separation of duties,
 * as with Vault Transit policies): producers that encrypt sensitive fields cannot read them back.
 * `admin` may do everything. Storage-broker permissions come from each entity's configuration instead.
 */
export const CRYPTO_OPERATION_ROLES = {
  encrypt: ['admin', 'writer', 'encrypter'],
  createSession: ['admin', 'writer', 'encrypter'],
  rewrap: ['admin', 'writer', 'encrypter'],
  decrypt: ['admin', 'decrypter'],
} as const satisfies Record<string, readonly string[]>;

export type CryptoOperation = keyof typeof CRYPTO_OPERATION_ROLES;

export function authorizeCryptoOperation(principal: Principal, operation: CryptoOperation): void {
  const allowed: readonly string[] = CRYPTO_OPERATION_ROLES[operation];
  if (!principal.roles.some((role) => allowed.includes(role))) {
    throw new DeltabrokerError('DB_FORBIDDEN', `operation '${operation}' needs one of the roles ${allowed.join(', ')}`, {
      field: 'dispatch.operation',
      rule: 'role',
      stage: 'auth',
    });
  }
}

/**
 * Service roles, held by the service's operators and never by a tenant: operator routes show or change state
 * of every tenant (metrics name every tenant's topics and their lag), so a tenant's `admin` does not reach
 * them. The identity provider must not let tenants grant these roles. `metrics` is for a scraper that needs
 * nothing else.
 */
export const OPERATOR_ROLE = 'operator';
export const METRICS_ROLE = 'metrics';

/** The caller, when it holds one of `roles` (service roles, see OPERATOR_ROLE); DB_FORBIDDEN (stage `auth`) otherwise. */
export function requireServiceRole(principal: Principal | undefined, roles: readonly string[], what: string): Principal {
  if (!principal?.roles.some((role) => roles.includes(role))) {
    throw new DeltabrokerError('DB_FORBIDDEN', `${what} needs the operator role ${roles.join(' or ')}; a tenant's roles do not reach it`, {
      field: 'Authorization',
      rule: 'operator-role',
      stage: 'auth',
    });
  }
  return principal;
}
