/**
 * The RQL abstract syntax tree. Every node carries `pos`: the 0-based offset in the query string where the
 * node starts, so later checks (unknown field, type mismatch) can point at it too.
 */

export type ValueType = 'auto' | 'string' | 'number' | 'boolean' | 'null' | 'date';

/**
 * A literal. `auto` is a bare, untyped word: it is a string unless the field it is compared with is numeric
 * or a timestamp, in which case it is converted (see compiler.ts). `text` is the decoded text as written
 * (after the type prefix), kept for exact integers and for re-serialising.
 */
export type RqlValue =
  | { kind: 'value'; type: 'auto'; value: string; text: string; pos: number }
  | { kind: 'value'; type: 'string'; value: string; text: string; pos: number }
  | { kind: 'value'; type: 'number'; value: number; text: string; pos: number }
  | { kind: 'value'; type: 'boolean'; value: boolean; text: string; pos: number }
  | { kind: 'value'; type: 'null'; value: null; text: string; pos: number }
  | { kind: 'value'; type: 'date'; value: Date; text: string; pos: number };

export interface FieldRef {
  name: string;
  pos: number;
}

export const COMPARISON_OPS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains', 'like', 'match'] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];
export const SET_OPS = ['in', 'out'] as const;
export type SetOp = (typeof SET_OPS)[number];
export const LOGICAL_OPS = ['and', 'or', 'not'] as const;
export const DIRECTIVES = ['sort', 'limit', 'select'] as const;
export type Directive = (typeof DIRECTIVES)[number];
export const OPERATORS = [...COMPARISON_OPS, ...SET_OPS, ...LOGICAL_OPS, ...DIRECTIVES] as const;

export type Filter =
  | { op: 'and' | 'or'; args: Filter[]; pos: number }
  | { op: 'not'; arg: Filter; pos: number }
  | { op: ComparisonOp; field: FieldRef; value: RqlValue; pos: number }
  | { op: SetOp; field: FieldRef; values: RqlValue[]; pos: number };

export interface SortKey {
  field: FieldRef;
  direction: 'asc' | 'desc';
}

export interface RqlQuery {
  /** Absent when the query has no filter term (every row). */
  filter?: Filter;
  sort?: { keys: SortKey[]; pos: number };
  limit?: { count: number; offset: number; pos: number };
  select?: { fields: FieldRef[]; pos: number };
}
