import type { Migration } from './index';

/**
 * Who owns each physical name whose collisions naming alone cannot rule out (src/tenant/name-claims.ts):
 * `kind` topic (named as Kafka compares them, `.` folded to `_`; owner a tenant), table (`schema.table`) or
 * index (owner `tenant/entity`).
 */
export const physicalNameClaims: Migration = {
  version: 5,
  name: 'physical-name-claims',
  statements: [
    `create table physical_name_claims (
       kind text not null check (kind in ('topic', 'table', 'index')),
       name text not null,
       owner text not null,
       claimed_at timestamptz not null default now(),
       primary key (kind, name)
     )`,
  ],
};
