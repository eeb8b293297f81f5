import { DeltabrokerError } from '../errors';
import type { Principal } from './principal';

/**
 * Roles that may use the operator routes (replay, verify, rejections), always within the caller's own tenant.
 * Kept in one place so that giving operators a role of their own is one change here.
 */
export const OPERATOR_ROLES: readonly string[] = ['admin'];

/** The caller, when one of its roles is an operator role; DB_FORBIDDEN (stage `auth`) otherwise. */
export function requireOperator(principal: Principal | undefined, what: string): Principal {
  if (!principal?.roles.some((role) => OPERATOR_ROLES.includes(role))) {
    throw new DeltabrokerError('DB_FORBIDDEN', `${what}: the role ${OPERATOR_ROLES.join(' or ')} is needed`, {
      field: 'Authorization',
      rule: 'role',
      stage: 'auth',
    });
  }
  return principal;
}
