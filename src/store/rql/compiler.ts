/**
 * RQL → one parameterised SQL statement over an entity's projection table.
 *
 * Identifiers (table, columns) come only from the EntityConfig and go through sql-identifier.ts; every value
 * is a bind parameter with an explicit cast to the column's type. A field the query names must be configured
 * (else DB_VALIDATION `unknown-field`) and readable by the caller (else DB_FORBIDDEN `unreadable-field`), in
 * filters, sort and select alike.
 *
 * Table shape (the Postgres projector creates it to match): one column per configured field, typed by
 * COLUMN_TYPES, plus `_doc jsonb`, `_version bigint`, `_event_id text`, `_position text`, `_updated_at timestamptz`.
 */
import { DeltabrokerError } from '../../errors';
import type { EntityConfig, FieldSpec, FieldType } from '../../tenant/entity-config';
import { fieldSpec } from '../../tenant/entity-config';
import { physicalNamesOf } from '../../tenant/physical-names';
import { quoteIdent, quoteQualified } from '../sql-identifier';
import type { FieldRef, Filter, RqlQuery, RqlValue } from './ast';
import { rqlFieldError, rqlForbiddenField } from './errors';
import { formatRql } from './format';
import { parseRql, type ParseOptions } from './parser';
import { NUMBER, parseDate } from './values';

/** Postgres column type of each field type. */
export const COLUMN_TYPES: Record<FieldType, string> = {
  string: 'text',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  object: 'jsonb',
};

/** System columns of every projection table, with their types. */
export const SYSTEM_COLUMNS = {
  _doc: 'jsonb',
  _version: 'bigint',
  _event_id: 'text',
  _position: 'text',
  _updated_at: 'timestamptz',
} as const;
export type MetaColumn = Exclude<keyof typeof SYSTEM_COLUMNS, '_doc'>;

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface CompileOptions extends ParseOptions {
  /** Fields the caller may read (permissions.readableFields). Others are never selected, filtered or sorted on. */
  readableFields: ReadonlySet<string>;
  /** Page size when the query has no limit(). Default 100. */
  defaultLimit?: number;
  /** Largest page; a bigger limit() is lowered to it (see `limitCapped`). Default 1000. */
  maxLimit?: number;
  /** System columns to add to each row (e.g. `_version` for optimistic concurrency). Default none. */
  meta?: readonly MetaColumn[];
}

export interface ResultColumn {
  name: string;
  /** A field type, or the SQL type of a system column. */
  type: FieldType | (typeof SYSTEM_COLUMNS)[MetaColumn];
}

export interface CompiledRql {
  /** The statement: SELECT … FROM … WHERE … ORDER BY … LIMIT $n OFFSET $m. */
  text: string;
  values: unknown[];
  /** SELECT count(*) with the same WHERE (count is a bigint: pg returns it as a string). */
  countText: string;
  countValues: unknown[];
  /** Result columns in order: the selected fields, then the requested meta columns. */
  columns: ResultColumn[];
  /** The selected field names (every readable field when the query has no select()). */
  select: string[];
  sort: Array<{ field: string; direction: 'asc' | 'desc' }>;
  limit: number;
  offset: number;
  /** True when the query asked for more than maxLimit rows. */
  limitCapped: boolean;
  /** RQL of the following page (same query, offset + limit); worth following when a page came back full. */
  readonly nextQuery: string;
  /** The parsed query. */
  query: RqlQuery;
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

type Usage = 'a filter' | 'sort()' | 'select()';

class Compiler {
  readonly params = new Params();

  constructor(
    private readonly entity: EntityConfig,
    private readonly readable: ReadonlySet<string>,
  ) {}

  /** The configured, readable field `ref` names. */
  field(ref: FieldRef, usage: Usage): FieldSpec {
    const spec = fieldSpec(this.entity, ref.name);
    if (spec === undefined) {
      throw rqlFieldError(ref.name, ref.pos, 'unknown-field', `unknown field "${ref.name}" of ${this.entity.tenant}/${this.entity.entity}`);
    }
    if (!this.readable.has(ref.name)) throw rqlForbiddenField(ref.name, ref.pos, usage);
    return spec;
  }

  where(f: Filter): string {
    switch (f.op) {
      case 'and':
      case 'or': {
        const parts = f.args.map((a) => this.where(a));
        return parts.length === 1 ? (parts[0] as string) : `(${parts.join(f.op === 'and' ? ' AND ' : ' OR ')})`;
      }
      case 'not':
        // IS NOT TRUE, not NOT: a row where the inner condition is unknown (NULL column) does match not().
        return `((${this.where(f.arg)}) IS NOT TRUE)`;
      case 'in':
      case 'out': {
        const spec = this.field(f.field, 'a filter');
        this.scalar(f.field, spec, f.op);
        const col = quoteIdent(f.field.name, 'column');
        const items = f.values.map((v) => {
          if (v.type === 'null') throw rqlFieldError(f.field.name, v.pos, 'null-in-list', `null cannot be in a list; use eq(${f.field.name},null) in an or()`);
          return this.bind(v, f.field, spec);
        });
        const arr = this.params.add(items, `${COLUMN_TYPES[spec.type]}[]`);
        return f.op === 'in' ? `${col} = ANY(${arr})` : `(${col} IS NULL OR ${col} <> ALL(${arr}))`;
      }
      default: {
        const spec = this.field(f.field, 'a filter');
        const col = quoteIdent(f.field.name, 'column');
        const v = f.value;
        if (v.type === 'null') {
          if (f.op === 'eq') return `${col} IS NULL`;
          if (f.op === 'ne') return `${col} IS NOT NULL`;
          throw rqlFieldError(f.field.name, v.pos, 'null-comparison', `${f.op}() cannot compare with null; only eq() and ne() can`);
        }
        this.scalar(f.field, spec, f.op);
        if (f.op === 'contains' || f.op === 'like' || f.op === 'match') {
          if (spec.type !== 'string') {
            throw rqlFieldError(f.field.name, f.pos, 'unsupported-operator', `${f.op}() applies to string fields; "${f.field.name}" is ${spec.type}`);
          }
          const text = this.bind(v, f.field, spec) as string;
          if (f.op === 'contains') return `strpos(${col}, ${this.params.add(text, 'text')}) > 0`;
          const pattern = this.params.add(globToLike(text), 'text');
          return `${col} ${f.op === 'like' ? 'LIKE' : 'ILIKE'} ${pattern} ESCAPE '\\'`;
        }
        const p = this.params.add(this.bind(v, f.field, spec), COLUMN_TYPES[spec.type]);
        const sqlOp = { eq: '=', ne: 'IS DISTINCT FROM', lt: '<', le: '<=', gt: '>', ge: '>=' }[f.op];
        return `${col} ${sqlOp} ${p}`;
      }
    }
  }

  /** Refuses operators on object (jsonb) fields: only eq/ne with null apply to them. */
  private scalar(ref: FieldRef, spec: FieldSpec, op: string): void {
    if (spec.type === 'object') {
      throw rqlFieldError(ref.name, ref.pos, 'unsupported-operator', `${op}() does not apply to object field "${ref.name}"; only eq/ne with null do`);
    }
  }

  /** The bind value of `v` compared with a field of `spec.type`; a value that cannot be one is DB_VALIDATION. */
  bind(v: RqlValue, ref: FieldRef, spec: FieldSpec): string | number | boolean {
    const mismatch = (hint: string): never => {
      throw rqlFieldError(
        ref.name,
        v.pos,
        'type-mismatch',
        `field "${ref.name}" is ${spec.type}; ${JSON.stringify(v.text)}${v.type === 'auto' ? '' : ` (${v.type})`} ${hint}`,
      );
    };
    switch (spec.type) {
      case 'string':
        if (v.type === 'auto' || v.type === 'string') return v.value;
        return mismatch(`is not a string (write string:${v.text} for the text)`);
      case 'integer': {
        if (v.type !== 'auto' && v.type !== 'number') return mismatch('is not a whole number');
        const text = v.text.trim();
        if (!/^[+-]?\d+$/.test(text)) return mismatch('is not a whole number');
        const big = BigInt(text);
        if (big > 9223372036854775807n || big < -9223372036854775808n) return mismatch('is outside the 64-bit integer range');
        return big.toString();
      }
      case 'number': {
        if (v.type === 'number') return v.value;
        if (v.type !== 'auto') return mismatch('is not a number');
        const n = Number(v.text);
        if (!NUMBER.test(v.text) || !Number.isFinite(n)) return mismatch('is not a number');
        return n;
      }
      case 'boolean':
        if (v.type === 'boolean') return v.value;
        return mismatch('is not true or false');
      case 'timestamp': {
        if (v.type === 'date') return v.value.toISOString();
        if (v.type !== 'auto') return mismatch('is not a date');
        const d = parseDate(v.text);
        if (d === undefined) return mismatch('is not an ISO 8601 date');
        return d.toISOString();
      }
      case 'object':
        return mismatch('cannot be compared with an object field');
    }
  }
}

/**
 * RQL glob → LIKE pattern: `*` is any run of characters, `?` one character, `\*`, `\?` and `\\` are the
 * characters themselves; SQL's own `%` and `_` are literal. The pattern is used with ESCAPE '\'.
 */
export function globToLike(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\' && i + 1 < glob.length) {
      const n = glob[++i] as string;
      out += n === '%' || n === '_' || n === '\\' ? `\\${n}` : n;
    } else if (c === '*') out += '%';
    else if (c === '?') out += '_';
    else if (c === '%' || c === '_' || c === '\\') out += `\\${c}`;
    else out += c;
  }
  return out;
}

/**
 * Compiles an RQL query (string or parsed) for `entity` into one SQL statement. See CompileOptions and
 * CompiledRql; errors are DB_BAD_REQUEST (syntax), DB_VALIDATION (unknown field, type mismatch,
 * unsupported operator) and DB_FORBIDDEN (a field the caller may not read).
 */
export function compileRql(query: string | RqlQuery, entity: EntityConfig, opts: CompileOptions): CompiledRql {
  const ast = typeof query === 'string' ? parseRql(query, opts) : query;
  const c = new Compiler(entity, opts.readableFields);
  const names = physicalNamesOf(entity);
  const table = quoteQualified(names.table, names.schema);

  const where = ast.filter === undefined ? '' : ` WHERE ${c.where(ast.filter)}`;
  const whereValues = [...c.params.values];

  let select: string[];
  if (ast.select !== undefined) {
    select = [];
    for (const ref of ast.select.fields) {
      c.field(ref, 'select()');
      if (!select.includes(ref.name)) select.push(ref.name);
    }
  } else {
    select = Object.keys(entity.fields).filter((f) => opts.readableFields.has(f));
  }
  const meta = [...new Set(opts.meta ?? [])];
  const columns: ResultColumn[] = [
    ...select.map((name) => ({ name, type: (entity.fields[name] as FieldSpec).type })),
    ...meta.map((name) => ({ name, type: SYSTEM_COLUMNS[name] })),
  ];

  const sort: Array<{ field: string; direction: 'asc' | 'desc' }> = [];
  for (const key of ast.sort?.keys ?? []) {
    const spec = c.field(key.field, 'sort()');
    if (spec.type === 'object') throw rqlFieldError(key.field.name, key.field.pos, 'unsupported-operator', `cannot sort on object field "${key.field.name}"`);
    if (!sort.some((s) => s.field === key.field.name)) sort.push({ field: key.field.name, direction: key.direction });
  }
  // Key columns break ties, so that pages are stable; nulls come last in both directions.
  const order = [...sort, ...entity.key.filter((k) => !sort.some((s) => s.field === k)).map((field) => ({ field, direction: 'asc' as const }))]
    .map((s) => `${quoteIdent(s.field, 'column')} ${s.direction === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`)
    .join(', ');

  const maxLimit = opts.maxLimit ?? MAX_LIMIT;
  const requested = ast.limit?.count ?? Math.min(opts.defaultLimit ?? DEFAULT_LIMIT, maxLimit);
  const limit = Math.min(requested, maxLimit);
  const offset = ast.limit?.offset ?? 0;

  if (select.length === 0) {
    throw new DeltabrokerError('DB_FORBIDDEN', `the caller's roles may read no field of ${entity.tenant}/${entity.entity}`, {
      rule: 'no-readable-field',
      stage: 'read',
    });
  }
  const columnList = columns.map((col) => quoteIdent(col.name, 'column')).join(', ');
  const limitParam = c.params.add(limit, 'bigint');
  const offsetParam = c.params.add(offset, 'bigint');
  const text = `SELECT ${columnList} FROM ${table}${where} ORDER BY ${order} LIMIT ${limitParam} OFFSET ${offsetParam}`;
  const countText = `SELECT count(*) AS "count" FROM ${table}${where}`;

  // Formatted on first use: only a page that came back full has a next page to name.
  let nextQuery: string | undefined;
  return {
    text,
    values: c.params.values,
    countText,
    countValues: whereValues,
    columns,
    select,
    sort,
    limit,
    offset,
    limitCapped: requested > limit,
    get nextQuery(): string {
      nextQuery ??= formatRql({ ...ast, limit: { count: limit, offset: offset + limit, pos: ast.limit?.pos ?? 0 } });
      return nextQuery;
    },
    query: ast,
  };
}
