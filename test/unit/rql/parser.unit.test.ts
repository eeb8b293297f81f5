import { DeltabrokerError } from '../../../src/errors';
import { formatRql, parseDate, parseRql, tokenize, type RqlQuery } from '../../../src/store/rql';

/** The AST without positions, for comparing shapes. */
function shape(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'pos' && k !== 'kind')
        .map(([k, v]) => [k, shape(v)]),
    );
  }
  return value;
}

const parsed = (q: string): unknown => shape(parseRql(q));
const auto = (v: string) => ({ type: 'auto', value: v, text: v });
const str = (v: string) => ({ type: 'string', value: v, text: v });
const f = (name: string) => ({ name });

function syntaxError(q: string): DeltabrokerError {
  try {
    parseRql(q);
  } catch (e) {
    if (e instanceof DeltabrokerError) return e;
    throw e;
  }
  throw new Error(`expected ${q} to be refused`);
}

describe('tokenizer', () => {
  it('splits on ( ) , & = and keeps text raw, trimmed, with positions', () => {
    expect(tokenize('eq( name , ACME GmbH )&x=y')).toEqual([
      { type: 'text', raw: 'eq', pos: 0 },
      { type: '(', raw: '', pos: 2 },
      { type: 'text', raw: 'name', pos: 4 },
      { type: ',', raw: '', pos: 9 },
      { type: 'text', raw: 'ACME GmbH', pos: 11 },
      { type: ')', raw: '', pos: 21 },
      { type: '&', raw: '', pos: 22 },
      { type: 'text', raw: 'x', pos: 23 },
      { type: '=', raw: '', pos: 24 },
      { type: 'text', raw: 'y', pos: 25 },
      { type: 'eof', raw: '', pos: 26 },
    ]);
  });
});

describe('operators', () => {
  it.each(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains', 'like', 'match'])('%s(field,value)', (op) => {
    expect(parsed(`${op}(country,DE)`)).toEqual({ filter: { op, field: f('country'), value: auto('DE') } });
  });

  it('in and out take a parenthesised list or the values inline', () => {
    const expected = (op: string) => ({ filter: { op, field: f('country'), values: [auto('DE'), auto('FR')] } });
    expect(parsed('in(country,(DE,FR))')).toEqual(expected('in'));
    expect(parsed('in(country,DE,FR)')).toEqual(expected('in'));
    expect(parsed('out(country,(DE,FR))')).toEqual(expected('out'));
    expect(parsed('out(country,DE,FR)')).toEqual(expected('out'));
    expect(parsed('in(country,())')).toEqual({ filter: { op: 'in', field: f('country'), values: [] } });
    expect(parsed('in(country,DE)')).toEqual({ filter: { op: 'in', field: f('country'), values: [auto('DE')] } });
  });

  it('and, or, not nest to any depth', () => {
    expect(parsed('or(and(eq(a,1),not(eq(b,2))),and(or(eq(c,3),eq(d,4)),eq(e,5)))')).toEqual({
      filter: {
        op: 'or',
        args: [
          {
            op: 'and',
            args: [
              { op: 'eq', field: f('a'), value: auto('1') },
              { op: 'not', arg: { op: 'eq', field: f('b'), value: auto('2') } },
            ],
          },
          {
            op: 'and',
            args: [
              {
                op: 'or',
                args: [
                  { op: 'eq', field: f('c'), value: auto('3') },
                  { op: 'eq', field: f('d'), value: auto('4') },
                ],
              },
              { op: 'eq', field: f('e'), value: auto('5') },
            ],
          },
        ],
      },
    });
  });

  it('top-level terms separated by , or & are and-ed; sort, limit, select are taken out', () => {
    const expected = {
      filter: {
        op: 'and',
        args: [
          { op: 'eq', field: f('a'), value: auto('1') },
          { op: 'gt', field: f('b'), value: auto('2') },
        ],
      },
      sort: {
        keys: [
          { field: f('name'), direction: 'asc' },
          { field: f('mcc'), direction: 'desc' },
          { field: f('country'), direction: 'asc' },
        ],
      },
      limit: { count: 10, offset: 20 },
      select: { fields: [f('name'), f('mcc')] },
    };
    expect(parsed('eq(a,1),sort(+name,-mcc,country),gt(b,2),limit(10,20),select(name,mcc)')).toEqual(expected);
    expect(parsed('eq(a,1)&sort(+name,-mcc,country)&gt(b,2)&limit(10,20)&select(name,mcc)')).toEqual(expected);
  });

  it('limit takes an optional offset; an empty query is every row', () => {
    expect(parsed('limit(5)')).toEqual({ limit: { count: 5, offset: 0 } });
    expect(parsed('')).toEqual({});
    expect(parsed('   ')).toEqual({});
  });

  it('FIQL shorthand: field=value is eq, field=op=value is op', () => {
    expect(parsed('country=DE&mcc=ge=5000&country=in=(DE,FR)')).toEqual({
      filter: {
        op: 'and',
        args: [
          { op: 'eq', field: f('country'), value: auto('DE') },
          { op: 'ge', field: f('mcc'), value: auto('5000') },
          { op: 'in', field: f('country'), values: [auto('DE'), auto('FR')] },
        ],
      },
    });
    expect(parsed('name=')).toEqual({ filter: { op: 'eq', field: f('name'), value: auto('') } });
  });
});

describe('values', () => {
  const value = (v: string) => (shape(parseRql(`eq(x,${v})`)) as { filter: { value: unknown } }).filter.value;

  it('types values by prefix', () => {
    expect(value('string:42')).toEqual(str('42'));
    expect(value('string:')).toEqual(str(''));
    expect(value('number:42')).toEqual({ type: 'number', value: 42, text: '42' });
    expect(value('number:-1.5e3')).toEqual({ type: 'number', value: -1500, text: '-1.5e3' });
    expect(value('boolean:false')).toEqual({ type: 'boolean', value: false, text: 'false' });
    expect(value('date:2024-03-01T10:00:00Z')).toEqual({ type: 'date', value: '2024-03-01T10:00:00.000Z', text: '2024-03-01T10:00:00Z' });
  });

  it('reads bare true, false, null; leaves other words untyped (auto)', () => {
    expect(value('true')).toEqual({ type: 'boolean', value: true, text: 'true' });
    expect(value('false')).toEqual({ type: 'boolean', value: false, text: 'false' });
    expect(value('null')).toEqual({ type: 'null', value: null, text: 'null' });
    expect(value('42')).toEqual(auto('42'));
    expect(value('True')).toEqual(auto('True'));
    expect(value('http://x')).toEqual(auto('http://x'));
    expect(value('')).toEqual(auto(''));
  });

  it('percent-decodes values and field names (UTF-8), after the type prefix; + stays +', () => {
    expect(value('ACME%20GmbH%2C%20Berlin')).toEqual(auto('ACME GmbH, Berlin'));
    expect(value('%28a%29%26b%3Dc')).toEqual(auto('(a)&b=c'));
    expect(value('Z%C3%BCrich')).toEqual(auto('Zürich'));
    expect(value('string:true%2C')).toEqual(str('true,'));
    expect(value('%74rue')).toEqual(auto('true'));
    expect(value('string%3A42')).toEqual(auto('string:42'));
    expect(value('a+b')).toEqual(auto('a+b'));
    expect(parsed('eq(na%6De,x)')).toEqual({ filter: { op: 'eq', field: f('name'), value: auto('x') } });
  });

  it('keeps inner whitespace, drops it around values', () => {
    expect(value(' ACME GmbH ')).toEqual(auto('ACME GmbH'));
    expect(value('%20padded%20')).toEqual(auto(' padded '));
  });

  it('parses dates in UTC unless an offset is given, and refuses days that do not exist', () => {
    expect(parseDate('2024-03-01')?.toISOString()).toBe('2024-03-01T00:00:00.000Z');
    expect(parseDate('2024-03-01T10:30')?.toISOString()).toBe('2024-03-01T10:30:00.000Z');
    expect(parseDate('2024-03-01 10:30:15.250')?.toISOString()).toBe('2024-03-01T10:30:15.250Z');
    expect(parseDate('2024-03-01T10:30:00+02:00')?.toISOString()).toBe('2024-03-01T08:30:00.000Z');
    expect(parseDate('2024-02-30')).toBeUndefined();
    expect(parseDate('yesterday')).toBeUndefined();
    expect(parseDate('2024-3-1')).toBeUndefined();
  });
});

describe('syntax errors name the position', () => {
  it.each([
    ['eq(a,b', 6, /expected "," or "\)" but found the end of the query/],
    ['eq(a,b))', 7, /expected "," or "&" between terms but found "\)"/],
    ['eq a', 4, /expected "\(" after "eq a" but found the end of the query/],
    ['(eq(a,b))', 0, /expected an operator/],
    ['eq(a,b) eq(c,d)', 8, /expected "," or "&" between terms but found "eq"/],
    ['foo(a,b)', 0, /unknown operator "foo"/],
    ['and(eq(a,1),bar(b))', 12, /unknown operator "bar"/],
    ['eq(a)', 0, /eq\(\) takes a field and a value/],
    ['eq(a,b,c)', 0, /eq\(\) takes a field and a value/],
    ['eq(a,(b,c))', 5, /takes a single value here, not a list/],
    ['eq(a,eq(b,c))', 5, /takes a single value here, not an operator/],
    ['in(a)', 0, /in\(\) takes a field and a list of values/],
    ['in(a,(b,(c)))', 8, /expected a value in the list but found "\("/],
    ['not(eq(a,1),eq(b,2))', 0, /not\(\) takes exactly one condition/],
    ['and()', 0, /and\(\) needs at least one condition/],
    ['or(sort(+a))', 3, /sort\(\) is only allowed as a top-level term/],
    ['sort(+a),sort(-b)', 9, /sort\(\) given more than once/],
    ['limit(10),limit(5)', 10, /limit\(\) given more than once/],
    ['limit(-1)', 6, /limit\(\) takes non-negative whole numbers/],
    ['limit(ten)', 6, /non-negative whole numbers/],
    ['limit(1,2,3)', 0, /limit\(\) takes a count and an optional offset/],
    ['select()', 0, /select\(\) needs at least one field/],
    ['sort()', 0, /sort\(\) needs at least one field/],
    ['eq(,x)', 3, /expected a field name but found nothing/],
    ['eq(string:a,x)', 3, /a field name cannot carry a type prefix/],
    ['eq(a,%zz)', 5, /malformed percent-encoding/],
    ['eq(a,ok%2)', 7, /malformed percent-encoding/],
    ['eq(a,string:%G1)', 12, /malformed percent-encoding/],
    ['eq(a,number:abc)', 12, /"abc" is not a number/],
    ['eq(a,number:1e999)', 12, /is not a number/],
    ['eq(a,boolean:yes)', 13, /"yes" is not true or false/],
    ['eq(a,date:2024-13-01)', 10, /is not an ISO 8601 date/],
    ['a=b=c', 2, /unknown operator "b"/],
    ['a==b', 2, /expected an operator name between "=" signs/],
    [',eq(a,b)', 0, /expected an operator/],
  ])('%s → position %i', (q, position, message) => {
    const e = syntaxError(q);
    expect(e.code).toBe('DB_BAD_REQUEST');
    expect(e.details).toMatchObject({ position, stage: 'read' });
    expect(e.message).toMatch(message);
    expect(e.message).toContain(`at position ${position}`);
  });

  it('refuses nesting deeper than maxDepth and queries longer than maxLength', () => {
    const deep = `${'not('.repeat(40)}eq(a,1)${')'.repeat(40)}`;
    expect(() => parseRql(deep)).toThrow(/nesting deeper than 32 levels/);
    expect(() => parseRql(deep, { maxDepth: 64 })).not.toThrow();
    expect(() => parseRql(`eq(a,${'x'.repeat(100)})`, { maxLength: 50 })).toThrow(/longer than 50 characters/);
  });

  it('refuses a payload that is not a string', () => {
    expect(() => parseRql({ eq: 1 } as unknown as string)).toThrow(/must be an RQL string/);
  });
});

describe('formatRql', () => {
  it.each([
    'eq(country,DE)',
    'and(or(eq(a,1),eq(b,2)),not(like(name,*GmbH)))',
    'in(country,(DE,FR)),out(status,(a,b)),select(name,mcc),sort(+name,-mcc),limit(10,20)',
    'eq(name,ACME%20GmbH%2C%20%28Berlin%29),eq(x,string:42),eq(y,number:1.50),eq(z,date:2024-01-01),eq(b,true),eq(n,null)',
    'eq(s,string%3A1),eq(e,),match(name,a\\*b?)',
    'eq(u,Z%C3%BCrich)',
  ])('round-trips %s', (q) => {
    const ast: RqlQuery = parseRql(q);
    const again = formatRql(ast);
    expect(shape(parseRql(again))).toEqual(shape(ast));
  });

  it('writes an untyped word that reads as true, false or null as a string', () => {
    expect(formatRql(parseRql('eq(t,%74rue),eq(n,%6Eull)'))).toBe('eq(t,string:true),eq(n,string:null)');
  });

  it('writes top-level and as comma-separated terms', () => {
    expect(formatRql(parseRql('and(eq(a,1),eq(b,2)),limit(5,10)'))).toBe('eq(a,1),eq(b,2),limit(5,10)');
  });
});
