import { DeltabrokerError } from '../errors';
import type { SqlClient, SqlExecutor } from '../store/sql-client';
import type { Keyring, KeyVersion } from './keyring';

/**
 * Per-subject data keys and their erasure (crypto-shredding). A data subject's personal data is encrypted only
 * under its own keyring key, `subject.<id>` (AES, versioned and wrapped like every other key). Erasing the
 * subject deletes those key rows and records who erased whom and when; every ciphertext under the key, in the
 * log, the tables, the indexes and their backups, becomes unreadable at once. An erased subject stays erased:
 * no new key is ever made for it.
 */
export const SUBJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const SUBJECT_ID_RULE = '1-64 characters of letters, digits, "_" and "-"';

export const subjectKeyName = (subject: string): string => `subject.${subject}`;

export interface SubjectErasure {
  tenant: string;
  subject: string;
  erasedBy: string;
  requestId: string | null;
  erasedAt: string;
}

/** Refuses a subject id that could not be part of a key reference. */
export function checkSubjectId(subject: string, field: string, stage: string): string {
  if (!SUBJECT_ID.test(subject)) {
    throw new DeltabrokerError('DB_VALIDATION', `a subject id is ${SUBJECT_ID_RULE}`, { field, rule: 'subject-id', stage });
  }
  return subject;
}

/** The subjects among `subjects` that are erased in `tenant` (one query; for projectors inside their transaction). */
export async function erasedSubjects(sql: SqlExecutor, tenant: string, subjects: readonly string[]): Promise<Set<string>> {
  if (subjects.length === 0) return new Set();
  const result = await sql.query<{ subject: string }>('select subject from crypto_subject_erasures where tenant = $1 and subject = any($2::text[])', [
    tenant,
    [...new Set(subjects)],
  ]);
  return new Set(result.rows.map((r) => r.subject));
}

/** Advisory lock class of subject erasures (the second key is the hashed `<tenant>/<subject>`). */
const SUBJECT_LOCK_CLASS = 19_019;

/**
 * Takes, shared, the lock an erasure takes exclusively, for each subject. A projector holding it in the
 * transaction that checks `erasedSubjects` and writes: an erasure either committed before its check, or waits
 * until it commits, after which the SubjectErased consumers scrub what it wrote.
 */
export async function lockSubjectsShared(tx: SqlExecutor, tenant: string, subjects: readonly string[]): Promise<void> {
  if (subjects.length === 0) return;
  await tx.query('select pg_advisory_xact_lock_shared($1, hashtext(s)) from unnest($2::text[]) as s order by s', [
    SUBJECT_LOCK_CLASS,
    [...new Set(subjects)].map((s) => `${tenant}/${s}`),
  ]);
}

const erasedError = (subject: string, field: string): DeltabrokerError =>
  new DeltabrokerError('DB_SUBJECT_ERASED', `data subject ${subject} was erased: its key is destroyed`, { field, rule: 'subject-erased', subject });

export class SubjectKeys {
  /** Erasure is final, so a subject seen erased is remembered; one not seen erased is looked up again. */
  readonly #erased = new Set<string>();

  constructor(
    private readonly sql: SqlClient,
    private readonly keyring: Keyring,
  ) {}

  /** The subject's newest key version, created on first use; refused once the subject is erased. */
  async encryptionKey(tenant: string, subject: string): Promise<KeyVersion> {
    await this.#refuseErased(tenant, subject, 'dispatch.subject');
    return this.keyring.encryptionKey(tenant, 'aes', subjectKeyName(subject));
  }

  async decryptionKey(tenant: string, subject: string, version: number): Promise<KeyVersion> {
    await this.#refuseErased(tenant, subject, 'payload');
    return this.keyring.decryptionKey(tenant, 'aes', subjectKeyName(subject), version);
  }

  async erasure(tenant: string, subject: string): Promise<SubjectErasure | undefined> {
    const result = await this.sql.query<ErasureRow>(
      'select tenant, subject, erased_by, request_id, erased_at from crypto_subject_erasures where tenant = $1 and subject = $2',
      [tenant, subject],
    );
    const row = result.rows[0];
    return row && erasureOf(row);
  }

  /** Key versions the subject has (0 before its first encryption and after its erasure). */
  async keyVersions(tenant: string, subject: string): Promise<number> {
    const result = await this.sql.query<{ n: string }>('select count(*) as n from crypto_key_versions where tenant = $1 and name = $2 and kind = $3', [
      tenant,
      subjectKeyName(subject),
      'aes',
    ]);
    return Number(result.rows[0]?.n ?? 0);
  }

  /**
   * Destroys the subject's key rows and records the erasure, in one transaction. Erasing again changes nothing
   * and answers the first erasure.
   */
  async erase(
    tenant: string,
    subject: string,
    erasedBy: string,
    requestId: string | null,
  ): Promise<{ erasure: SubjectErasure; destroyedVersions: number; first: boolean }> {
    const outcome = await this.sql.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [SUBJECT_LOCK_CLASS, `${tenant}/${subject}`]);
      const inserted = await tx.query<ErasureRow>(
        `insert into crypto_subject_erasures (tenant, subject, erased_by, request_id) values ($1, $2, $3, $4)
         on conflict (tenant, subject) do nothing
         returning tenant, subject, erased_by, request_id, erased_at`,
        [tenant, subject, erasedBy, requestId],
      );
      const destroyedVersions = await this.keyring.destroy(tx, tenant, 'aes', subjectKeyName(subject));
      return { row: inserted.rows[0], destroyedVersions };
    });
    this.keyring.forget(tenant, 'aes', subjectKeyName(subject));
    this.#erased.add(`${tenant}/${subject}`);
    const erasure = outcome.row ? erasureOf(outcome.row) : await this.erasure(tenant, subject);
    if (!erasure)
      throw new DeltabrokerError('DB_INTERNAL', `the erasure of subject ${subject} was recorded but cannot be read back`, {
        stage: 'erasure',
        field: 'subject',
      });
    return { erasure, destroyedVersions: outcome.destroyedVersions, first: outcome.row !== undefined };
  }

  async #refuseErased(tenant: string, subject: string, field: string): Promise<void> {
    const id = `${tenant}/${subject}`;
    if (this.#erased.has(id) || (await erasedSubjects(this.sql, tenant, [subject])).has(subject)) {
      this.#erased.add(id);
      this.keyring.forget(tenant, 'aes', subjectKeyName(subject));
      throw erasedError(subject, field);
    }
  }
}

interface ErasureRow {
  tenant: string;
  subject: string;
  erased_by: string;
  request_id: string | null;
  erased_at: Date | string;
}

const erasureOf = (row: ErasureRow): SubjectErasure => ({
  tenant: row.tenant,
  subject: row.subject,
  erasedBy: row.erased_by,
  requestId: row.request_id,
  erasedAt: new Date(row.erased_at).toISOString(),
});
