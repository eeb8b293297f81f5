/**
 * What projectors do with personal fields (issue 19): a personal field holds a ciphertext under its data
 * subject's key, and its key reference names the subject (`subject.<id>`). Where that subject is erased, the
 * projection holds the marker instead. Live projection and replay decide the same way, from the ciphertexts
 * and the erasure records, so a replay after an erasure reproduces the erased state exactly.
 */
import { parseCiphertext } from '../src/crypto/ciphertext';
import { erasedSubjects, lockSubjectsShared } from '../src/crypto/subject-keys';
import type { SearchDocument } from '../src/search';
import type { SqlExecutor } from '../src/store/sql-client';
import { ERASED_MARKER, personalFields, type EntityConfig } from '../src/tenant';

/** The subject a personal value's ciphertext is sealed under, or undefined for anything else. */
function subjectOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const { keyRef } = parseCiphertext(value);
    return keyRef.kind === 'subject' ? keyRef.subject : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The documents with every personal value of an erased subject replaced by the marker (same objects when the
 * entity has no personal field or nothing is erased). Run it inside the transaction that writes the documents.
 */
export async function maskErasedPersonalFields<T extends Record<string, unknown>>(tx: SqlExecutor, config: EntityConfig, docs: readonly T[]): Promise<T[]> {
  const fields = personalFields(config);
  if (fields.length === 0) return [...docs];
  const subjects = docs.flatMap((d) => fields.map((f) => subjectOf(d[f]))).filter((s): s is string => s !== undefined);
  if (subjects.length === 0) return [...docs];
  await lockSubjectsShared(tx, config.tenant, subjects);
  const erased = await erasedSubjects(tx, config.tenant, subjects);
  if (erased.size === 0) return [...docs];
  return docs.map((doc) => {
    const masked = fields.filter((f) => erased.has(subjectOf(doc[f]) ?? ''));
    return masked.length === 0 ? doc : { ...doc, ...Object.fromEntries(masked.map((f) => [f, ERASED_MARKER])) };
  });
}

/** Search documents with the personal values of erased subjects masked in their `source`. */
export async function maskErasedDocuments(sql: SqlExecutor, config: EntityConfig, docs: readonly SearchDocument[]): Promise<SearchDocument[]> {
  const sources = await maskErasedPersonalFields(
    sql,
    config,
    docs.map((d) => d.source),
  );
  return docs.map((doc, i) => (sources[i] === doc.source ? doc : { ...doc, source: sources[i] as Record<string, unknown> }));
}
