/**
 * RQL parser: query string → RqlQuery (ast.ts). Syntax and arity errors are DB_BAD_REQUEST naming the
 * 0-based position; fields are not checked here (see compiler.ts).
 *
 *   query   := ε | term ((',' | '&') term)*          top-level terms are and-ed
 *   term    := NAME '(' args ')'                      eq(country,DE)
 *            | FIELD '=' value                        country=DE          (same as eq)
 *            | FIELD '=' NAME '=' value               mcc=ge=5000         (same as ge(mcc,5000))
 *   args    := ε | arg (',' arg)*
 *   arg     := term-call | '(' value (',' value)* ')' | TEXT | ε      an empty arg is the empty string
 *
 * Values (values.ts): `string:`, `number:`, `date:`, `boolean:` prefixes type a value; bare `true`, `false`,
 * `null` are booleans and null; any other bare word is typed by the field it meets. Text is percent-decoded.
 */
import { COMPARISON_OPS, OPERATORS, SET_OPS, type ComparisonOp, type FieldRef, type Filter, type RqlQuery, type SetOp, type SortKey } from './ast';
import { rqlSyntaxError } from './errors';
import { percentDecode, tokenize, type Token } from './tokenizer';
import { parseValue, TYPE_PREFIX } from './values';

export interface ParseOptions {
  /** Longest accepted query, in characters. Default 16 KiB. */
  maxLength?: number;
  /** Deepest accepted nesting of calls. Default 32. */
  maxDepth?: number;
}

type Node =
  { kind: 'call'; name: string; args: Node[]; pos: number } | { kind: 'array'; items: Node[]; pos: number } | { kind: 'text'; raw: string; pos: number };

const OPERATOR_NAME = /^[A-Za-z]+$/;

class Parser {
  private i = 0;
  private readonly tokens: Token[];

  constructor(
    private readonly query: string,
    private readonly maxDepth: number,
  ) {
    this.tokens = tokenize(query);
  }

  private get peek(): Token {
    return this.tokens[this.i] as Token;
  }

  private next(): Token {
    return this.tokens[this.i++] as Token;
  }

  private fail(pos: number, message: string, rule?: string): never {
    throw rqlSyntaxError(this.query, pos, message, rule);
  }

  private describe(t: Token): string {
    return t.type === 'eof' ? 'the end of the query' : t.type === 'text' ? JSON.stringify(t.raw) : `"${t.type}"`;
  }

  private expect(type: Token['type'], what: string): Token {
    const t = this.next();
    if (t.type !== type) this.fail(t.pos, `expected ${what} but found ${this.describe(t)}`);
    return t;
  }

  parseTop(): Node[] {
    const terms: Node[] = [];
    if (this.peek.type === 'eof') return terms;
    for (;;) {
      terms.push(this.term(0));
      const t = this.next();
      if (t.type === 'eof') return terms;
      if (t.type !== ',' && t.type !== '&') this.fail(t.pos, `expected "," or "&" between terms but found ${this.describe(t)}`);
    }
  }

  private term(depth: number): Node {
    const head = this.next();
    if (head.type !== 'text') this.fail(head.pos, `expected an operator such as eq(field,value) but found ${this.describe(head)}`);
    if (this.peek.type === '(') return this.call(head, depth);
    if (this.peek.type === '=') return this.fiql(head);
    return this.fail(this.peek.pos, `expected "(" after ${JSON.stringify(head.raw)} but found ${this.describe(this.peek)}`);
  }

  private call(head: Token, depth: number): Node {
    if (depth >= this.maxDepth) this.fail(head.pos, `nesting deeper than ${this.maxDepth} levels`, 'too-deep');
    this.expect('(', '"("');
    const args: Node[] = [];
    if (this.peek.type === ')') {
      this.next();
    } else {
      for (;;) {
        args.push(this.arg(depth + 1));
        const t = this.next();
        if (t.type === ')') break;
        if (t.type !== ',') this.fail(t.pos, `expected "," or ")" but found ${this.describe(t)}`);
      }
    }
    return { kind: 'call', name: head.raw, args, pos: head.pos };
  }

  private fiql(field: Token): Node {
    this.expect('=', '"="');
    const first = this.fiqlValue();
    if (this.peek.type !== '=') return { kind: 'call', name: 'eq', args: [{ kind: 'text', raw: field.raw, pos: field.pos }, first], pos: field.pos };
    this.next();
    if (first.kind !== 'text' || !OPERATOR_NAME.test(first.raw)) this.fail(first.pos, 'expected an operator name between "=" signs', 'unknown-operator');
    const value = this.fiqlValue();
    return { kind: 'call', name: first.raw, args: [{ kind: 'text', raw: field.raw, pos: field.pos }, value], pos: first.pos };
  }

  private fiqlValue(): Node {
    const t = this.peek;
    if (t.type === 'text') return { kind: 'text', raw: this.next().raw, pos: t.pos };
    if (t.type === '(') return this.array();
    return { kind: 'text', raw: '', pos: t.pos };
  }

  private arg(depth: number): Node {
    const t = this.peek;
    if (t.type === '(') return this.array();
    if (t.type === ',' || t.type === ')') return { kind: 'text', raw: '', pos: t.pos };
    if (t.type !== 'text') this.fail(t.pos, `expected a value but found ${this.describe(t)}`);
    this.next();
    if (this.peek.type === '(') return this.call(t, depth);
    return { kind: 'text', raw: t.raw, pos: t.pos };
  }

  private array(): Node {
    const open = this.expect('(', '"("');
    const items: Node[] = [];
    if (this.peek.type === ')') {
      this.next();
      return { kind: 'array', items, pos: open.pos };
    }
    for (;;) {
      const t = this.peek;
      if (t.type === 'text') {
        this.next();
        if (this.peek.type === '(') this.fail(this.peek.pos, 'a list holds values, not operators');
        items.push({ kind: 'text', raw: t.raw, pos: t.pos });
      } else if (t.type === ',' || t.type === ')') {
        items.push({ kind: 'text', raw: '', pos: t.pos });
      } else {
        this.fail(t.pos, `expected a value in the list but found ${this.describe(t)}`);
      }
      const sep = this.next();
      if (sep.type === ')') return { kind: 'array', items, pos: open.pos };
      if (sep.type !== ',') this.fail(sep.pos, `expected "," or ")" in the list but found ${this.describe(sep)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Nodes → typed query

class Builder {
  constructor(private readonly query: string) {}

  private fail(pos: number, message: string, rule?: string): never {
    throw rqlSyntaxError(this.query, pos, message, rule);
  }

  build(terms: Node[]): RqlQuery {
    const out: RqlQuery = {};
    const filters: Filter[] = [];
    for (const term of terms) {
      if (term.kind !== 'call') this.fail(term.pos, 'expected an operator');
      switch (term.name) {
        case 'sort':
          if (out.sort !== undefined) this.fail(term.pos, 'sort() given more than once', 'duplicate');
          out.sort = { keys: this.sortKeys(term), pos: term.pos };
          break;
        case 'limit':
          if (out.limit !== undefined) this.fail(term.pos, 'limit() given more than once', 'duplicate');
          out.limit = this.limit(term);
          break;
        case 'select':
          if (out.select !== undefined) this.fail(term.pos, 'select() given more than once', 'duplicate');
          out.select = { fields: this.fieldList(term), pos: term.pos };
          break;
        default:
          filters.push(this.filter(term));
      }
    }
    if (filters.length === 1) out.filter = filters[0];
    else if (filters.length > 1) out.filter = { op: 'and', args: filters, pos: filters[0]?.pos ?? 0 };
    return out;
  }

  private filter(node: Node): Filter {
    if (node.kind !== 'call') return this.fail(node.pos, 'expected an operator such as eq(field,value)');
    const name = node.name;
    if (name === 'and' || name === 'or') {
      if (node.args.length === 0) this.fail(node.pos, `${name}() needs at least one condition`, 'arity');
      return { op: name, args: node.args.map((a) => this.filter(a)), pos: node.pos };
    }
    if (name === 'not') {
      if (node.args.length !== 1) this.fail(node.pos, 'not() takes exactly one condition', 'arity');
      return { op: 'not', arg: this.filter(node.args[0] as Node), pos: node.pos };
    }
    if ((COMPARISON_OPS as readonly string[]).includes(name)) {
      if (node.args.length !== 2) this.fail(node.pos, `${name}() takes a field and a value`, 'arity');
      const [f, v] = node.args as [Node, Node];
      if (v.kind !== 'text') this.fail(v.pos, `${name}() takes a single value here, not ${v.kind === 'array' ? 'a list' : 'an operator'}`);
      return { op: name as ComparisonOp, field: this.field(f), value: parseValue(v.raw, v.pos, this.query), pos: node.pos };
    }
    if ((SET_OPS as readonly string[]).includes(name)) {
      if (node.args.length < 2) this.fail(node.pos, `${name}() takes a field and a list of values: ${name}(field,(a,b)) or ${name}(field,a,b)`, 'arity');
      const [f, ...rest] = node.args as [Node, ...Node[]];
      const items = rest.length === 1 && rest[0]?.kind === 'array' ? rest[0].items : rest;
      const values = items.map((v) => {
        if (v.kind !== 'text') this.fail(v.pos, `${name}() takes values, not ${v.kind === 'array' ? 'nested lists' : 'operators'}`);
        return parseValue(v.raw, v.pos, this.query);
      });
      return { op: name as SetOp, field: this.field(f), values, pos: node.pos };
    }
    if (name === 'sort' || name === 'limit' || name === 'select') {
      return this.fail(node.pos, `${name}() is only allowed as a top-level term`, 'misplaced');
    }
    return this.fail(node.pos, `unknown operator ${JSON.stringify(name)} (known: ${OPERATORS.join(', ')})`, 'unknown-operator');
  }

  private field(node: Node): FieldRef {
    if (node.kind !== 'text') this.fail(node.pos, 'expected a field name');
    if (node.raw === '') this.fail(node.pos, 'expected a field name but found nothing');
    if (TYPE_PREFIX.test(node.raw)) this.fail(node.pos, 'a field name cannot carry a type prefix');
    return { name: percentDecode(node.raw, node.pos, this.query), pos: node.pos };
  }

  private fieldList(node: Node & { kind: 'call' }): FieldRef[] {
    if (node.args.length === 0) this.fail(node.pos, `${node.name}() needs at least one field`, 'arity');
    return node.args.map((a) => this.field(a));
  }

  private sortKeys(node: Node & { kind: 'call' }): SortKey[] {
    if (node.args.length === 0) this.fail(node.pos, 'sort() needs at least one field, e.g. sort(+name,-mcc)', 'arity');
    return node.args.map((a) => {
      if (a.kind !== 'text' || a.raw === '') return this.fail(a.pos, 'expected +field or -field');
      const sign = a.raw[0];
      const signed = sign === '+' || sign === '-';
      const raw = signed ? a.raw.slice(1) : a.raw;
      const field = this.field({ kind: 'text', raw, pos: signed ? a.pos + 1 : a.pos });
      return { field, direction: sign === '-' ? 'desc' : 'asc' };
    });
  }

  private limit(node: Node & { kind: 'call' }): { count: number; offset: number; pos: number } {
    if (node.args.length < 1 || node.args.length > 2) this.fail(node.pos, 'limit() takes a count and an optional offset: limit(count,offset)', 'arity');
    const [count, offset] = node.args.map((a) => {
      if (a.kind !== 'text' || !/^\d{1,15}$/.test(a.raw)) return this.fail(a.pos, 'limit() takes non-negative whole numbers', 'limit');
      return Number(a.raw);
    });
    return { count: count as number, offset: offset ?? 0, pos: node.pos };
  }
}

/** Parses an RQL string. Throws DB_BAD_REQUEST with `details.position` on a syntax error. */
export function parseRql(query: string, options: ParseOptions = {}): RqlQuery {
  const maxLength = options.maxLength ?? 16 * 1024;
  if (typeof query !== 'string') throw rqlSyntaxError('', 0, 'the read payload must be an RQL string', 'type');
  if (query.length > maxLength) throw rqlSyntaxError(query, maxLength, `the query is longer than ${maxLength} characters`, 'max-length');
  const parser = new Parser(query, options.maxDepth ?? 32);
  return new Builder(query).build(parser.parseTop());
}
