/**
 * Bad input to the log tool and to the embedded broker's options is a catalogue error naming the field and the
 * rule, so the CLI prints its code and callers can tell it from a bug.
 */
import { resolveOptions } from '../../../src/embedded/kafka/options';
import { parseFrom, schemaNamed } from '../../../src/log/tool';

describe('catalogue refusals of the log tool and the embedded broker options', () => {
  test('the log tool refuses an unknown --from and an unknown --schema', () => {
    expect(() => parseFrom('yesterday')).toThrow(expect.objectContaining({ code: 'DB_BAD_REQUEST', details: { field: '--from', rule: 'format' } }));
    expect(() => schemaNamed('NoSuchRecord')).toThrow(expect.objectContaining({ code: 'DB_BAD_REQUEST', details: { field: '--schema', rule: 'enum' } }));
    expect(parseFrom('2:17')).toEqual({ kind: 'offsets', offsets: [{ partition: 2, offset: '17' }] });
  });

  test.each([
    [{ dataDir: '' }, 'dataDir', 'required'],
    [{ dataDir: '/tmp/x', fsync: 'sometimes' as never }, 'fsync', 'enum'],
    [{ dataDir: '/tmp/x', messageTimestampType: 'WallClock' as never }, 'messageTimestampType', 'enum'],
    [{ dataDir: '/tmp/x', saslRequired: true }, 'saslUsers', 'required'],
    [{ dataDir: '/tmp/x', defaultPartitions: 0 }, 'defaultPartitions', 'positive-integer'],
    [{ dataDir: '/tmp/x', maxConnections: 1.5 }, 'maxConnections', 'positive-integer'],
  ])('embedded broker options %j are refused on %s (%s)', (options, field, rule) => {
    expect(() => resolveOptions(options)).toThrow(
      expect.objectContaining({ name: 'DeltabrokerError', code: 'DB_VALIDATION', details: expect.objectContaining({ field, rule }) }),
    );
  });
});
