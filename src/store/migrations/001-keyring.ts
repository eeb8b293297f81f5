import type { Migration } from './index';

/**
 * The keyring: one row per key and one row per key version (a single blob per key breaks at many versions).
 * Key material is stored only wrapped by the master key; HSM keys store the token label instead.
 * `crypto_config` is the seed's CRYPTO_CONFIG table: custom HSM key aliases.
 */
export const keyring: Migration = {
  version: 1,
  name: 'keyring',
  statements: [
    `create table crypto_keys (
       tenant text not null,
       name text not null,
       kind text not null check (kind in ('aes', 'hsm')),
       latest_version integer not null default 0,
       min_decryption_version integer not null default 1,
       created_at timestamptz not null default now(),
       primary key (tenant, name, kind)
     )`,
    `create table crypto_key_versions (
       tenant text not null,
       name text not null,
       kind text not null,
       version integer not null,
       wrapped_material bytea,
       hsm_label text,
       encryptions bigint not null default 0,
       created_at timestamptz not null default now(),
       primary key (tenant, name, kind, version),
       foreign key (tenant, name, kind) references crypto_keys (tenant, name, kind),
       check ((wrapped_material is null) <> (hsm_label is null))
     )`,
    `create table crypto_config (
       tenant text not null,
       alias text not null,
       method text not null,
       key_label text not null,
       enabled boolean not null default true,
       created_at timestamptz not null default now(),
       primary key (tenant, alias)
     )`,
    `create table crypto_sessions (
       id text primary key,
       tenant text not null,
       method text not null,
       wrapped_key bytea not null,
       wrapping_version integer not null,
       expires_at timestamptz not null,
       max_uses bigint not null,
       uses bigint not null default 0,
       created_by text not null,
       created_at timestamptz not null default now()
     )`,
  ],
};
