/**
 * RqlQuery → RQL string (used for `next` page links). parseRql(formatRql(q)) gives back q, positions aside.
 */
import type { Filter, RqlQuery, RqlValue } from './ast';
import { TYPE_PREFIX as LOOKS_TYPED } from './values';

const SAFE = /^[A-Za-z0-9\-_.~*?!'@+/;$:]$/;

/** Percent-encodes everything but a conservative set of characters (structure, `%`, spaces, non-ASCII). */
export function encodeRqlText(text: string): string {
  let out = '';
  for (const ch of text) {
    if (SAFE.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  // A colon after a word that names a type would make a typed value; encode it.
  return LOOKS_TYPED.test(out) ? out.replace(':', '%3A') : out;
}

export function formatValue(v: RqlValue): string {
  switch (v.type) {
    case 'auto':
      return v.text === 'true' || v.text === 'false' || v.text === 'null' ? `string:${v.text}` : encodeRqlText(v.text);
    case 'string':
      return `string:${encodeRqlText(v.text)}`;
    case 'number':
      return `number:${encodeRqlText(v.text)}`;
    case 'date':
      return `date:${encodeRqlText(v.text)}`;
    case 'boolean':
      return String(v.value);
    case 'null':
      return 'null';
  }
}

export function formatFilter(f: Filter): string {
  switch (f.op) {
    case 'and':
    case 'or':
      return `${f.op}(${f.args.map(formatFilter).join(',')})`;
    case 'not':
      return `not(${formatFilter(f.arg)})`;
    case 'in':
    case 'out':
      return `${f.op}(${encodeRqlText(f.field.name)},(${f.values.map(formatValue).join(',')}))`;
    default:
      return `${f.op}(${encodeRqlText(f.field.name)},${formatValue(f.value)})`;
  }
}

export function formatRql(q: RqlQuery): string {
  const terms: string[] = [];
  if (q.filter !== undefined) {
    if (q.filter.op === 'and') terms.push(...q.filter.args.map(formatFilter));
    else terms.push(formatFilter(q.filter));
  }
  if (q.select !== undefined) terms.push(`select(${q.select.fields.map((f) => encodeRqlText(f.name)).join(',')})`);
  if (q.sort !== undefined) terms.push(`sort(${q.sort.keys.map((k) => `${k.direction === 'asc' ? '+' : '-'}${encodeRqlText(k.field.name)}`).join(',')})`);
  if (q.limit !== undefined) terms.push(`limit(${q.limit.count},${q.limit.offset})`);
  return terms.join(',');
}
