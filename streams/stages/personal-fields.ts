import { parseCiphertext } from '../../src/crypto/ciphertext';
import { SUBJECT_ID, SUBJECT_ID_RULE } from '../../src/crypto/subject-keys';
import { DeltabrokerError } from '../../src/errors';
import { personalFields } from '../../src/tenant';
import { required, type DeltaContext } from '../context';

/**
 * Part of stage 7: every personal field present is sealed under the subject key of this record's data subject,
 * so erasing the subject reaches it. The subject is the payload's subject field, or the stored record's for
 * an update that leaves it out; it may not change once set (the record's personal data would be split over
 * two keys). Runs after the sensitive check, so every personal value here is a well-formed ciphertext.
 */
export function checkPersonalFields(ctx: DeltaContext): void {
  const config = required(ctx, 'config');
  const fields = required(ctx, 'fields');
  const subjectField = config.subject;
  if (subjectField === undefined) return;
  const refuse = (field: string, rule: string, message: string): never => {
    throw new DeltabrokerError('DB_VALIDATION', message, { field: `payload.${field}`, rule });
  };
  const stored = ctx.current?.deleted === false ? ctx.current.doc?.[subjectField] : undefined;
  const given = fields[subjectField];
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string' || !SUBJECT_ID.test(given)) refuse(subjectField, 'subject-id', `${subjectField} names the data subject: ${SUBJECT_ID_RULE}`);
    if (typeof stored === 'string' && stored !== given)
      refuse(subjectField, 'subject-immutable', `${subjectField} names the data subject and cannot change once set`);
  }
  const subject = given ?? stored;
  for (const name of personalFields(config)) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (typeof subject !== 'string') refuse(subjectField, 'subject-required', `${name} is personal: the record needs its data subject in ${subjectField}`);
    const { keyRef } = parseCiphertext(value as string, `payload.${name}`);
    if (keyRef.kind !== 'subject' || keyRef.subject !== subject) {
      refuse(name, 'subject-key', `${name} is personal: encrypt it with POST /dispatch and "subject": the record's ${subjectField}`);
    }
  }
}
