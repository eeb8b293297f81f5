import { MAX_PAYLOAD_DEPTH, validateDelta } from '../../../../streams/stages/validate-delta';
import { contextOf, refusalOf, runStage } from './stage-harness';

const validate = (over: Parameters<typeof contextOf>[0]) => runStage(validateDelta(), { ctx: contextOf(over, { fields: undefined }) });
const refused = (field: string, rule: string) => ({ code: 'DB_VALIDATION', stage: 'validate', field, rule });

describe('stage 2: validate', () => {
  test('sets the parsed fields of a valid payload; a delete needs none', () => {
    expect(validate({ payload: JSON.stringify({ merchantId: 'm-1', name: 'Ada', mcc: 5411, country: null }) }).ctx.fields).toEqual({
      merchantId: 'm-1',
      name: 'Ada',
      mcc: 5411,
      country: null,
    });
    expect(validate({ operation: 'delete', payload: null }).ctx.fields).toEqual({});
  });

  test.each([
    ['not JSON', { payload: '{"merchantId":' }, refused('payload', 'json')],
    ['an array', { payload: '[1]' }, refused('payload', 'object')],
    ['a create without payload', { payload: null }, refused('payload', 'required')],
    ['an unknown field', { payload: JSON.stringify({ merchantId: 'm-1', name: 'A', nickname: 'x' }) }, refused('payload.nickname', 'unknown-field')],
    ['a missing required field', { payload: JSON.stringify({ merchantId: 'm-1' }) }, refused('payload.name', 'required')],
    ['a required field set to null', { payload: JSON.stringify({ merchantId: 'm-1', name: null }) }, refused('payload.name', 'required')],
    ['a fraction in an integer field', { payload: JSON.stringify({ merchantId: 'm-1', name: 'A', mcc: 54.5 }) }, refused('payload.mcc', 'type:integer')],
    ['a number in a string field', { payload: JSON.stringify({ merchantId: 'm-1', name: 7 }) }, refused('payload.name', 'type:string')],
    ['a key that differs from the payload', { key: 'm-2' }, refused('payload.merchantId', 'key-mismatch')],
    ['an empty key', { key: '', payload: JSON.stringify({ name: 'A', merchantId: '' }) }, refused('key', 'key-length')],
    ['a lone surrogate', { payload: '{"merchantId":"m-1","name":"\\ud800"}' }, refused('payload.name', 'utf16')],
    ['U+0000 in a value', { payload: '{"merchantId":"m-1","name":"A\\u0000"}' }, refused('payload.name', 'nul-character')],
    ['U+0000 in a nested key', { payload: '{"merchantId":"m-1","name":"A","address":{"c\\u0000":1}}' }, refused('payload.address.c\u0000', 'nul-character')],
    ['U+0000 in the record key', { key: 'm\u00001', payload: '{"name":"A"}' }, refused('key', 'nul-character')],
    ['U+0000 in the delta id', { id: 'd\u0000' }, refused('id', 'nul-character')],
    [
      'a number beyond a double in an object field',
      { payload: '{"merchantId":"m-1","name":"A","profile":{"n":[1,1e400]}}' },
      refused('payload.profile.n[1]', 'finite-number'),
    ],
    [
      'a finite number of three exponent digits where its type says otherwise',
      { payload: '{"merchantId":"m-1","name":"A","mcc":1e300}' },
      refused('payload.mcc', 'type:integer'),
    ],
    [
      'a 400-digit number in an object field',
      { payload: `{"merchantId":"m-1","name":"A","profile":{"n":-${'9'.repeat(400)}}}` },
      refused('payload.profile.n', 'finite-number'),
    ],
    [
      `a payload nested ${MAX_PAYLOAD_DEPTH + 1} levels deep`,
      { payload: `{"merchantId":"m-1","name":"A","address":${'['.repeat(MAX_PAYLOAD_DEPTH)}${']'.repeat(MAX_PAYLOAD_DEPTH)}}` },
      refused('payload', 'max-depth'),
    ],
  ])('refuses %s', (_what, over, expected) => {
    const out = validate(over);
    expect(refusalOf(out)).toEqual(expected);
    expect(out.ctx.fields).toBeUndefined();
  });

  test(`a payload nested ${MAX_PAYLOAD_DEPTH} levels deep passes the depth check, however many brackets its strings hold`, () => {
    const nested = `${'['.repeat(MAX_PAYLOAD_DEPTH - 1)}${']'.repeat(MAX_PAYLOAD_DEPTH - 1)}`;
    const deepEnough = validate({ payload: `{"merchantId":"m-1","name":"${'{['.repeat(200)}","address":${nested}}` });
    expect(refusalOf(deepEnough)).toEqual(refused('payload.address', 'unknown-field'));
  });

  test('an update is checked like a create: required fields present, not null', () => {
    expect(validate({ operation: 'update', payload: JSON.stringify({ merchantId: 'm-1', name: 'Ada', country: 'FR' }) }).refusal).toBeUndefined();
    expect(refusalOf(validate({ operation: 'update', payload: JSON.stringify({ merchantId: 'm-1', country: 'FR' }) }))).toEqual(
      refused('payload.name', 'required'),
    );
    expect(refusalOf(validate({ operation: 'update', payload: JSON.stringify({ merchantId: 'm-1', name: null }) }))).toEqual(
      refused('payload.name', 'required'),
    );
  });
});
