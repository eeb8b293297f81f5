import avro from 'avsc';
import { compatibilityProblems, incompatibleMessage, parseCompatibilityLevel, type CompatibilityLevel } from '../../../src/embedded/registry/compatibility';

const record = (fields: object[]) => avro.Type.forSchema({ type: 'record', name: 'T', namespace: 'x', fields } as avro.Schema);
const v = (version: number, type: avro.Type) => ({ version, type });

const a = record([{ name: 'a', type: 'string' }]);
const aWithDefaultedB = record([
  { name: 'a', type: 'string' },
  { name: 'b', type: 'int', default: 0 },
]);
const aWithRequiredB = record([
  { name: 'a', type: 'string' },
  { name: 'b', type: 'int' },
]);
const onlyB = record([{ name: 'b', type: 'int', default: 0 }]);

describe('compatibility levels, decided by avsc schema resolution', () => {
  test.each<[CompatibilityLevel, avro.Type, boolean]>([
    ['BACKWARD', aWithDefaultedB, true], // new reader fills the default
    ['BACKWARD', aWithRequiredB, false], // new reader has no value for b
    ['FORWARD', aWithRequiredB, true], // old reader ignores b
    ['FORWARD', onlyB, false], // old reader needs a, which new data lacks
    ['FULL', aWithDefaultedB, true],
    ['FULL', aWithRequiredB, false],
    ['NONE', onlyB, true],
  ])('%s: adding to [a] the candidate is compatible = %s', (level, candidate, ok) => {
    expect(compatibilityProblems(level, candidate, [v(1, a)]).length === 0).toBe(ok);
  });

  test('a non-transitive level checks the latest version only; a transitive one checks all', () => {
    // v1 has a required field `a`; v2 dropped it; v3 adds a required `c`... only v1 breaks FORWARD for v3
    const v1 = a;
    const v2 = record([{ name: 'a', type: 'string', default: '' }]);
    const candidate = record([{ name: 'c', type: 'int', default: 1 }]);
    expect(compatibilityProblems('FORWARD', candidate, [v(1, v1), v(2, v2)])).toEqual([]);
    const problems = compatibilityProblems('FORWARD_TRANSITIVE', candidate, [v(1, v1), v(2, v2)]);
    expect(problems.map((p) => [p.direction, p.oldSchemaVersion])).toEqual([['FORWARD', 1]]);
  });

  test('BACKWARD_TRANSITIVE refuses a schema that only the oldest version breaks', () => {
    const v1 = record([{ name: 'a', type: 'int' }]);
    const v2 = record([
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int', default: 0 },
    ]);
    const candidate = record([
      { name: 'a', type: 'long' },
      { name: 'b', type: 'int' },
    ]); // b now required
    expect(compatibilityProblems('BACKWARD', candidate, [v(1, v1), v(2, v2)])).toEqual([]);
    const problems = compatibilityProblems('BACKWARD_TRANSITIVE', candidate, [v(1, v1), v(2, v2)]);
    expect(problems.map((p) => [p.direction, p.oldSchemaVersion])).toEqual([['BACKWARD', 1]]);
  });

  test('FULL_TRANSITIVE reports both directions for every version it breaks', () => {
    const problems = compatibilityProblems('FULL_TRANSITIVE', record([{ name: 'q', type: 'int' }]), [v(1, a), v(2, a)]);
    expect(problems.map((p) => `${p.direction}@${p.oldSchemaVersion}`)).toEqual(['BACKWARD@1', 'FORWARD@1', 'BACKWARD@2', 'FORWARD@2']);
  });

  test('an enum with a default accepts new symbols forward; without one it does not', () => {
    const e = (symbols: string[], dflt?: string) => avro.Type.forSchema({ type: 'enum', name: 'E', symbols, ...(dflt ? { default: dflt } : {}) });
    expect(compatibilityProblems('FORWARD', e(['A', 'B', 'C']), [v(1, e(['A', 'B']))])).toHaveLength(1);
    expect(compatibilityProblems('FORWARD', e(['A', 'B', 'C'], 'A'), [v(1, e(['A', 'B'], 'A'))])).toEqual([]);
    expect(compatibilityProblems('BACKWARD', e(['A', 'B', 'C']), [v(1, e(['A', 'B']))])).toEqual([]);
  });

  test('levels parse case-insensitively and unknown ones are refused', () => {
    expect(parseCompatibilityLevel('backward_transitive')).toBe('BACKWARD_TRANSITIVE');
    expect(parseCompatibilityLevel('SIDEWAYS')).toBeUndefined();
    expect(parseCompatibilityLevel(3)).toBeUndefined();
  });

  test("the refusal message uses Confluent's wording and names the compatibility level", () => {
    const problems = compatibilityProblems('BACKWARD', aWithRequiredB, [v(1, a)]);
    expect(incompatibleMessage('t-value', 'BACKWARD', problems)).toMatch(
      /^Schema being registered is incompatible with an earlier schema for subject "t-value", details: \[.*"oldSchemaVersion":1.*\{"compatibility":"BACKWARD"\}\]$/,
    );
  });
});
