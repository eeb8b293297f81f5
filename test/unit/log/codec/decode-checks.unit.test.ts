import avro from 'avsc';
import { decodedValuesNeedCheck } from '../../../../src/log/codec/decode-checks';
import { loadSchemas, RECORD_NAMES } from '../../../../src/log/schemas';

const schemas = loadSchemas();
const typeOf = (schema: unknown): avro.Type => avro.Type.forSchema(schema as avro.Schema);
/** A record whose `next` field is another of it, and whose `v` field is of `valueType`. */
const recursiveRecord = (name: string, valueType: string): unknown => ({
  type: 'record',
  name,
  fields: [
    { name: 'next', type: ['null', name] },
    { name: 'v', type: valueType },
  ],
});

test("the project's schemas: only those with an int have their decoded values checked", () => {
  const checked = RECORD_NAMES.filter((name) => decodedValuesNeedCheck(schemas[name].type));
  expect(checked.sort()).toEqual(['DeltaOutcome', 'Rejection']);
});

test.each<[string, unknown, boolean]>([
  ['an int field', { type: 'record', name: 'A', fields: [{ name: 'n', type: 'int' }] }, true],
  ['an int in a union', { type: 'record', name: 'B', fields: [{ name: 'n', type: ['null', 'int'] }] }, true],
  ['an int deep in an array of maps', { type: 'array', items: { type: 'map', values: 'int' } }, true],
  [
    'an int in a nested record',
    { type: 'record', name: 'C', fields: [{ name: 'r', type: { type: 'record', name: 'D', fields: [{ name: 'n', type: 'int' }] } }] },
    true,
  ],
  [
    'a logical type',
    { type: 'record', name: 'E', fields: [{ name: 't', type: { type: 'long', logicalType: 'timestamp-millis' } }] },
    false, // avsc without logical-type implementations reads it as its underlying long
  ],
  [
    'longs, strings, enums, arrays and maps',
    {
      type: 'record',
      name: 'F',
      fields: [
        { name: 'l', type: 'long' },
        { name: 's', type: ['null', 'string'] },
        { name: 'e', type: { type: 'enum', name: 'G', symbols: ['x', 'y'] } },
        { name: 'a', type: { type: 'array', items: 'string' } },
        { name: 'm', type: { type: 'map', values: 'double' } },
        { name: 'b', type: 'bytes' },
      ],
    },
    false,
  ],
  ['a recursive record without ints', recursiveRecord('Node', 'string'), false],
  ['a recursive record with an int', recursiveRecord('IntNode', 'int'), true],
])('%s', (_name, schema, expected) => {
  expect(decodedValuesNeedCheck(typeOf(schema))).toBe(expected);
});

test('a logical type avsc converts is checked', () => {
  class Millis extends avro.types.LogicalType {
    override _fromValue(value: unknown): unknown {
      return new Date(value as number);
    }
    override _toValue(value: unknown): unknown {
      return value instanceof Date ? value.getTime() : value;
    }
  }
  const type = avro.Type.forSchema({ type: 'long', logicalType: 'millis' }, { logicalTypes: { millis: Millis } });
  expect(decodedValuesNeedCheck(type)).toBe(true);
});
