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
