import type { Migration } from './index';

/**
 * Delta ids are the tenant's: an Idempotency-Key one tenant sends never meets another tenant's delta with the
 * same key. Existing rows keep their tenant, and ids that were unique stay unique per tenant.
 */
export const tenantScopedDeltas: Migration = {
  version: 4,
  name: 'tenant-scoped-deltas',
  statements: [`alter table delta_outcomes drop constraint delta_outcomes_pkey`, `alter table delta_outcomes add primary key (tenant, delta_id)`],
};
