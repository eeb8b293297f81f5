import { DeltabrokerError } from '../../../src/errors';
import { compileRql, decodeRow, globToLike, type CompileOptions } from '../../../src/store/rql';
import { parseEntityConfig, readableFields } from '../../../src/tenant';
import { rqlEntity, rqlEntityInput } from './fixtures';

const entity = rqlEntity();
const admin: CompileOptions = { readableFields: readableFields(entity, ['admin']) };
const reader: CompileOptions = { readableFields: readableFields(entity, ['reader']) };
const ALL = '"merchantId", "name", "country", "mcc", "score", "active", "openedAt", "meta", "iban"';

const compile = (q: string, opts: CompileOptions = admin) => compileRql(q, entity, opts);
/** The WHERE clause and its values alone. */
function where(q: string, opts: CompileOptions = admin): [string, unknown[]] {
  const c = compile(q, opts);
  const m = / WHERE (.*) ORDER BY /.exec(c.text);
  return [m?.[1] ?? '', c.countValues];
}

function refusal(q: string, opts: CompileOptions = admin): DeltabrokerError {
  try {
    compile(q, opts);
  } catch (e) {
    if (e instanceof DeltabrokerError) return e;
    throw e;
  }
  throw new Error(`expected ${q} to be refused`);
}

describe('the statement', () => {
  it('is one parameterised SELECT with every readable column, key order, default page', () => {
    const c = compile('eq(country,DE)');
    expect(c.text).toBe(
      `SELECT ${ALL} FROM "tenant_rt"."rt_merchant" WHERE "country" = $1::text ORDER BY "merchantId" ASC NULLS LAST LIMIT $2::bigint OFFSET $3::bigint`,
    );
    expect(c.values).toEqual(['DE', 100, 0]);
    expect(c.countText).toBe('SELECT count(*) AS "count" FROM "tenant_rt"."rt_merchant" WHERE "country" = $1::text');
    expect(c.countValues).toEqual(['DE']);
    expect(c).toMatchObject({ limit: 100, offset: 0, limitCapped: false, sort: [] });
    expect(c.nextQuery).toBe('eq(country,DE),limit(100,100)');
  });

  it("has no WHERE for an empty query, and reads the table in the tenant's schema", () => {
    const c = compile('');
    expect(c.text).toBe(`SELECT ${ALL} FROM "tenant_rt"."rt_merchant" ORDER BY "merchantId" ASC NULLS LAST LIMIT $1::bigint OFFSET $2::bigint`);
    expect(c.countText).toBe('SELECT count(*) AS "count" FROM "tenant_rt"."rt_merchant"');
  });

  it("never reads another tenant's table, whatever the configuration names", () => {
    const other = parseEntityConfig({ ...rqlEntityInput(), tenant: 'rt_merchant', entity: 'x', persistence: { table: 'rt_merchant' } });
    expect(compileRql('', other, admin).text).toContain('FROM "tenant_rt_merchant"."rt_merchant"');
  });

  it('accepts a parsed query as well as a string', () => {
    const c = compile('eq(mcc,1)');
    expect(compileRql(c.query, entity, admin).text).toBe(c.text);
  });
});

describe('operators', () => {
  it.each([
    ['eq(name,ACME)', '"name" = $1::text', ['ACME']],
    ['ne(name,ACME)', '"name" IS DISTINCT FROM $1::text', ['ACME']],
    ['lt(mcc,5000)', '"mcc" < $1::bigint', ['5000']],
    ['le(mcc,5000)', '"mcc" <= $1::bigint', ['5000']],
    ['gt(score,1.5)', '"score" > $1::double precision', [1.5]],
    ['ge(openedAt,2024-01-01)', '"openedAt" >= $1::timestamptz', ['2024-01-01T00:00:00.000Z']],
    ['in(country,(DE,FR))', '"country" = ANY($1::text[])', [['DE', 'FR']]],
    ['out(mcc,1,2)', '("mcc" IS NULL OR "mcc" <> ALL($1::bigint[]))', [['1', '2']]],
    ['contains(name,GmbH)', 'strpos("name", $1::text) > 0', ['GmbH']],
    ['like(name,ACME*)', `"name" LIKE $1::text ESCAPE '\\'`, ['ACME%']],
    ['match(name,*gmbh)', `"name" ILIKE $1::text ESCAPE '\\'`, ['%gmbh']],
    ['eq(country,null)', '"country" IS NULL', []],
    ['ne(country,null)', '"country" IS NOT NULL', []],
    ['eq(meta,null)', '"meta" IS NULL', []],
    ['eq(active,true)', '"active" = $1::boolean', [true]],
    ['ne(active,boolean:false)', '"active" IS DISTINCT FROM $1::boolean', [false]],
    ['not(eq(country,DE))', '(("country" = $1::text) IS NOT TRUE)', ['DE']],
    ['and(eq(country,DE),gt(mcc,1))', '("country" = $1::text AND "mcc" > $2::bigint)', ['DE', '1']],
    ['or(eq(country,DE),eq(country,FR))', '("country" = $1::text OR "country" = $2::text)', ['DE', 'FR']],
    ['or(eq(country,DE))', '"country" = $1::text', ['DE']],
    [
      'eq(country,DE),or(lt(mcc,10),not(and(gt(score,1),eq(active,false))))',
      '("country" = $1::text AND ("mcc" < $2::bigint OR ((("score" > $3::double precision AND "active" = $4::boolean)) IS NOT TRUE)))',
      ['DE', '10', 1, false],
    ],
    ['mcc=ge=7', '"mcc" >= $1::bigint', ['7']],
  ])('%s', (q, sql, values) => {
    expect(where(q)).toEqual([sql, values]);
  });
});

describe('values meet field types', () => {
  it('types an untyped word by its field', () => {
    expect(where('eq(name,42)')[1]).toEqual(['42']);
    expect(where('eq(mcc,42)')[1]).toEqual(['42']);
    expect(where('eq(mcc,number:42)')[1]).toEqual(['42']);
    expect(where('eq(mcc,9223372036854775807)')[1]).toEqual(['9223372036854775807']);
    expect(where('eq(score,-0.5)')[1]).toEqual([-0.5]);
    expect(where('eq(score,number:3)')[1]).toEqual([3]);
    expect(where('eq(openedAt,2024-03-01T10:00:00%2B02:00)')[1]).toEqual(['2024-03-01T08:00:00.000Z']);
    expect(where('eq(openedAt,date:2024-03-01)')[1]).toEqual(['2024-03-01T00:00:00.000Z']);
    expect(where('eq(name,string:true)')[1]).toEqual(['true']);
  });

  it.each([
    ['eq(mcc,abc)', 'mcc', /field "mcc" is integer; "abc" is not a whole number/],
    ['eq(mcc,1.5)', 'mcc', /not a whole number/],
    ['eq(mcc,number:1.5)', 'mcc', /not a whole number/],
    ['eq(mcc,string:5)', 'mcc', /not a whole number/],
    ['eq(mcc,9223372036854775808)', 'mcc', /outside the 64-bit integer range/],
    ['eq(score,abc)', 'score', /is not a number/],
    ['eq(score,Infinity)', 'score', /is not a number/],
    ['eq(active,yes)', 'active', /is not true or false/],
    ['eq(openedAt,yesterday)', 'openedAt', /is not an ISO 8601 date/],
    ['eq(openedAt,number:5)', 'openedAt', /is not a date/],
    ['eq(name,true)', 'name', /is not a string \(write string:true for the text\)/],
    ['eq(name,number:5)', 'name', /is not a string/],
    ['eq(name,date:2024-01-01)', 'name', /is not a string/],
  ])('%s is refused (type-mismatch)', (q, field, message) => {
    const e = refusal(q);
    expect(e.code).toBe('DB_VALIDATION');
    expect(e.details).toMatchObject({ field, rule: 'type-mismatch', stage: 'read' });
    expect(e.message).toMatch(message);
  });

  it.each([
    ['lt(mcc,null)', 'null-comparison'],
    ['in(country,(DE,null))', 'null-in-list'],
    ['eq(meta,x)', 'unsupported-operator'],
    ['in(meta,(a))', 'unsupported-operator'],
    ['contains(mcc,5)', 'unsupported-operator'],
    ['like(active,t*)', 'unsupported-operator'],
    ['match(openedAt,2024*)', 'unsupported-operator'],
    ['sort(+meta)', 'unsupported-operator'],
  ])('%s is refused (%s)', (q, rule) => {
    const e = refusal(q);
    expect(e.code).toBe('DB_VALIDATION');
    expect(e.details.rule).toBe(rule);
  });
});

describe('fields must be configured and readable', () => {
  it.each([
    ['eq(nope,1)', 3],
    ['and(eq(country,DE),not(gt(nope,1)))', 26],
    ['sort(-nope)', 6],
    ['select(name,nope)', 12],
    ['in(nope,(1))', 3],
    ['eq(constructor,1)', 3],
    ['eq(__proto__,1)', 3],
    ['eq(_doc,1)', 3],
    ['eq(_version,1)', 3],
    ['eq(Name,x)', 3],
  ])('%s → DB_VALIDATION unknown-field at %i', (q, position) => {
    const e = refusal(q);
    expect(e.code).toBe('DB_VALIDATION');
    expect(e.details).toMatchObject({ rule: 'unknown-field', stage: 'read', position });
    expect(e.message).toMatch(/^unknown field "/);
  });

  it.each([
    ['eq(iban,x)', 'a filter'],
    ['or(eq(name,x),contains(iban,DE))', 'a filter'],
    ['sort(+iban)', 'sort()'],
    ['select(name,iban)', 'select()'],
  ])('%s → DB_FORBIDDEN naming iban for a reader', (q, usage) => {
    const e = refusal(q, reader);
    expect(e.code).toBe('DB_FORBIDDEN');
    expect(e.details).toMatchObject({ field: 'iban', rule: 'unreadable-field', stage: 'read' });
    expect(e.message).toContain(usage);
  });

  it('selects only readable fields when the query has no select()', () => {
    const c = compile('eq(country,DE)', reader);
    expect(c.select).toEqual(['merchantId', 'name', 'country', 'mcc', 'score', 'active', 'openedAt', 'meta']);
    expect(c.text).not.toContain('iban');
  });

  it('refuses a caller who may read no field at all', () => {
    const e = refusal('', { readableFields: readableFields(entity, ['nobody']) });
    expect(e.code).toBe('DB_FORBIDDEN');
    expect(e.details.rule).toBe('no-readable-field');
  });
});

describe('select, sort, limit', () => {
  it('selects the named fields in order, once each, plus requested meta columns', () => {
    const c = compile('select(mcc,name,mcc)', { ...admin, meta: ['_version', '_updated_at'] });
    expect(c.select).toEqual(['mcc', 'name']);
    expect(c.columns).toEqual([
      { name: 'mcc', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: '_version', type: 'bigint' },
      { name: '_updated_at', type: 'timestamptz' },
    ]);
    expect(c.text).toMatch(/^SELECT "mcc", "name", "_version", "_updated_at" FROM/);
  });

  it('sorts as asked, nulls last, with the key as the tie-breaker', () => {
    const c = compile('sort(-mcc,+name,country,-mcc)');
    expect(c.text).toContain('ORDER BY "mcc" DESC NULLS LAST, "name" ASC NULLS LAST, "country" ASC NULLS LAST, "merchantId" ASC NULLS LAST LIMIT');
    expect(c.sort).toEqual([
      { field: 'mcc', direction: 'desc' },
      { field: 'name', direction: 'asc' },
      { field: 'country', direction: 'asc' },
    ]);
    expect(compile('sort(-merchantId)').text).toContain('ORDER BY "merchantId" DESC NULLS LAST LIMIT');
  });

  it('pages: limit and offset are parameters; the limit is capped at maxLimit', () => {
    expect(compile('limit(10,30)')).toMatchObject({ limit: 10, offset: 30, limitCapped: false, values: [10, 30] });
    expect(compile('limit(5000)')).toMatchObject({ limit: 1000, limitCapped: true, nextQuery: 'limit(1000,1000)' });
    expect(compile('limit(50)', { ...admin, maxLimit: 20 })).toMatchObject({ limit: 20, limitCapped: true });
    expect(compile('', { ...admin, defaultLimit: 25 })).toMatchObject({ limit: 25 });
    expect(compile('', { ...admin, defaultLimit: 25, maxLimit: 10 })).toMatchObject({ limit: 10, limitCapped: false });
    expect(compile('limit(0)')).toMatchObject({ limit: 0 });
  });

  it('gives the next page as RQL', () => {
    expect(compile('eq(name,ACME%20GmbH),sort(-mcc),select(name),limit(10,20)').nextQuery).toBe('eq(name,ACME%20GmbH),select(name),sort(-mcc),limit(10,30)');
  });
});

describe('injection attempts stay data', () => {
  it.each([
    ["x'%3B DROP TABLE rt_merchant%3B --", "x'; DROP TABLE rt_merchant; --"],
    ["x' OR '1'%3D'1", "x' OR '1'='1"],
    ['$1', '$1'],
    ['%22%20OR%20%22%22%3D%22', '" OR ""="'],
    ["string:x'%29 OR true --", "x') OR true --"],
  ])('%s is bound as a value, never spliced into SQL', (encoded, decoded) => {
    for (const [template, harmless] of [
      [`eq(name,${encoded})`, 'eq(name,x)'],
      [`in(country,(DE,${encoded}))`, 'in(country,(DE,x))'],
      [`contains(name,${encoded})`, 'contains(name,x)'],
    ] as const) {
      const c = compile(template);
      expect(c.text).toBe(compile(harmless).text);
      expect(JSON.stringify(c.values)).toContain(JSON.stringify(decoded).slice(1, -1));
    }
  });

  it.each(['eq(name";DROP TABLE rt_merchant;--,1)', "eq(name'--,1)", 'sort(+name%22%3B%20DROP%20TABLE%20x)', 'select(name%20FROM%20pg_user%20--)'])(
    '%s names no configured field and is refused',
    (q) => {
      expect(refusal(q).details.rule).toBe('unknown-field');
    },
  );

  it('refuses structure smuggled into field names as syntax', () => {
    expect(() => compile('eq(name),1)')).toThrow(DeltabrokerError);
  });
});

describe('helpers', () => {
  it('globToLike: * and ? are wildcards, SQL wildcards and escapes are literal', () => {
    expect(globToLike('a*b?c')).toBe('a%b_c');
    expect(globToLike('100%_x')).toBe('100\\%\\_x');
    expect(globToLike('a\\*b\\?c\\\\d')).toBe('a*b?c\\\\d');
    expect(globToLike('back\\')).toBe('back\\\\');
  });

  it('decodeRow: bigint strings to numbers (strings beyond 2^53), dates to ISO strings', () => {
    const c = compile('select(mcc,openedAt,name,meta)', { ...admin, meta: ['_version'] });
    expect(decodeRow({ mcc: '5812', openedAt: new Date('2024-01-01T00:00:00Z'), name: 'A', meta: { a: 1 }, _version: '9007199254740993' }, c)).toEqual({
      mcc: 5812,
      openedAt: '2024-01-01T00:00:00.000Z',
      name: 'A',
      meta: { a: 1 },
      _version: '9007199254740993',
    });
    expect(decodeRow({ mcc: null, openedAt: null, name: null, meta: null, _version: '1' }, c)).toEqual({
      mcc: null,
      openedAt: null,
      name: null,
      meta: null,
      _version: 1,
    });
  });
});
