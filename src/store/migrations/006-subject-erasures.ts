import type { Migration } from './index';

/**
 * Erasures of data subjects (crypto-shredding, src/crypto/subject-keys.ts): who erased whom and when, per
 * tenant. The subject's key rows are deleted from the keyring; this row is what remains, and it holds no
 * personal data (the subject id is an opaque pseudonym by rule).
 */
export const subjectErasures: Migration = {
  version: 6,
  name: 'subject-erasures',
  statements: [
    `create table crypto_subject_erasures (
       tenant text not null,
       subject text not null,
       erased_by text not null,
       request_id text,
       erased_at timestamptz not null default now(),
       primary key (tenant, subject)
     )`,
  ],
};
