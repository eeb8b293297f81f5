import { InMemoryEntityConfigSource, type EntityConfig } from '../../../../src/tenant';
import { checkSensitiveEncrypted } from '../../../../streams/stages/check-sensitive-encrypted';
import { ciphertext, contextOf, refusalOf, runStage } from './stage-harness';

const IBAN = 'DE89370400440532013000';
const withIban = (iban: unknown) => contextOf({ payload: JSON.stringify({ merchantId: 'm-1', name: 'Ada', iban }) });
const refused = (field: string, rule: string) => ({ code: 'DB_VALIDATION', stage: 'encryption', field, rule });

/** A customer entity whose `email` is personal data of the record's subject (`subjectId`). */
const customers: EntityConfig = new InMemoryEntityConfigSource().put({
  tenant: 'acme',
  entity: 'customer',
  key: 'id',
  subject: 'subjectId',
  fields: { id: 'string', subjectId: 'string', email: { type: 'string', personal: true }, note: 'string' },
});
const customer = (fields: Record<string, unknown>, current?: Record<string, unknown>) => ({
  ctx: {
    ...contextOf({ entity: 'customer', key: 'c-1', payload: JSON.stringify({ id: 'c-1', ...fields }) }),
    config: customers,
    ...(current && { current: { version: 1, deleted: false, doc: current } }),
  },
});

describe('stage 7: sensitive fields arrive encrypted', () => {
  test('accepts a ciphertext of an accepted method, and a delta without the sensitive field', () => {
    expect(runStage(checkSensitiveEncrypted(), { ctx: withIban(ciphertext(IBAN)) }).refusal).toBeUndefined();
    expect(runStage(checkSensitiveEncrypted(), { ctx: contextOf() }).refusal).toBeUndefined();
    expect(runStage(checkSensitiveEncrypted(), { ctx: withIban(null) }).refusal).toBeUndefined();
  });

  test('refuses a plaintext without repeating it', () => {
    const out = runStage(checkSensitiveEncrypted(), { ctx: withIban(IBAN) });
    expect(refusalOf(out)).toEqual(refused('payload.iban', 'encrypted'));
    expect(out.refusal?.message).not.toContain(IBAN);
  });

  test('refuses a non-string, a truncated ciphertext and a method the field does not accept', () => {
    expect(refusalOf(runStage(checkSensitiveEncrypted(), { ctx: withIban(42) }))).toEqual(refused('payload.iban', 'encrypted'));
    expect(refusalOf(runStage(checkSensitiveEncrypted(), { ctx: withIban('aes256skv1:default:v1:AAAA') }))).toEqual(refused('payload.iban', 'encrypted'));
    const ctx = withIban(ciphertext(IBAN));
    const config = ctx.config as EntityConfig;
    const hsmOnly: EntityConfig = {
      ...config,
      fields: { ...config.fields, iban: { ...config.fields.iban, sensitive: { methods: ['hsm'] } } as EntityConfig['fields'][string] },
    };
    expect(refusalOf(runStage(checkSensitiveEncrypted(), { ctx: { ...ctx, config: hsmOnly } }))).toEqual(refused('payload.iban', 'encryption-method'));
  });
});

describe('stage 7: personal fields are sealed under their subject key', () => {
  const sealedFor = (subject: string) => ciphertext('ada@example.org', { kind: 'subject', subject });

  test("accepts a personal value under the record's subject key", () => {
    expect(runStage(checkSensitiveEncrypted(), customer({ subjectId: 's-1', email: sealedFor('s-1') })).refusal).toBeUndefined();
  });

  test('an update may leave the subject out: the stored one counts', () => {
    expect(runStage(checkSensitiveEncrypted(), customer({ email: sealedFor('s-1') }, { id: 'c-1', subjectId: 's-1' })).refusal).toBeUndefined();
  });

  test.each([
    ['sealed under another subject', { subjectId: 's-1', email: sealedFor('s-2') }, undefined, refused('payload.email', 'subject-key')],
    ['sealed under the default key', { subjectId: 's-1', email: ciphertext('ada@example.org') }, undefined, refused('payload.email', 'subject-key')],
    ['on a record without subject', { email: sealedFor('s-1') }, undefined, refused('payload.subjectId', 'subject-required')],
    ['with a subject id that is not one', { subjectId: 'not an id!', email: sealedFor('s-1') }, undefined, refused('payload.subjectId', 'subject-id')],
    [
      'changing the stored subject',
      { subjectId: 's-2', email: sealedFor('s-2') },
      { id: 'c-1', subjectId: 's-1' },
      refused('payload.subjectId', 'subject-immutable'),
    ],
  ])('refuses a personal value %s', (_what, fields, current, expected) => {
    expect(refusalOf(runStage(checkSensitiveEncrypted(), customer(fields, current)))).toEqual(expected);
  });
});
