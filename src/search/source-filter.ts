/**
 * `_source` filtering (Elasticsearch's `true`/`false`/pattern/`{includes, excludes}` forms) and the caller's
 * readable fields, applied to each hit by both adapters. Patterns match top-level keys; `*` is a wildcard.
 */
import type { SourceFilter } from './dsl/ast';
import { forbiddenField, invalid, isPlainObject } from './dsl/errors';
import { wildcardToRegExp } from './dsl/fields';

function patterns(value: unknown, path: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((p) => typeof p !== 'string')) {
    throw invalid(path, 'type', '_source patterns must be a string or an array of strings');
  }
  return list as string[];
}

/**
 * Includes that name a field the caller may not read are refused, as a query naming one is; a `*` pattern
 * silently covers readable fields only, and excludes hide nothing the caller could see.
 */
function included(value: unknown, path: string, isHidden: (field: string) => boolean): string[] {
  const list = patterns(value, path);
  list.forEach((pattern, i) => {
    if (!pattern.includes('*') && isHidden(pattern)) throw forbiddenField(typeof value === 'string' ? path : `${path}[${i}]`, pattern);
  });
  return list;
}

/** `isHidden` says which fields the caller may not read (declared but not readable). */
export function parseSourceFilter(value: unknown, path = 'payload._source', isHidden: (field: string) => boolean = () => false): SourceFilter {
  if (value === undefined || value === true) return { includes: [], excludes: [] };
  if (value === false) return false;
  if (!isPlainObject(value)) return { includes: included(value, path, isHidden), excludes: [] };
  for (const key of Object.keys(value)) {
    if (key !== 'includes' && key !== 'excludes') throw invalid(`${path}.${key}`, 'unsupported-clause', `_source option "${key}" is not supported`);
  }
  return {
    includes: value.includes === undefined ? [] : included(value.includes, `${path}.includes`, isHidden),
    excludes: value.excludes === undefined ? [] : patterns(value.excludes, `${path}.excludes`),
  };
}

/** A function from a stored source to what the caller gets back (`undefined`: no `_source` at all). */
export function sourceProjector(
  filter: SourceFilter,
  readable?: ReadonlySet<string>,
): (source: Record<string, unknown>) => Record<string, unknown> | undefined {
  if (filter === false) return () => undefined;
  const includes = filter.includes.map(wildcardToRegExp);
  const excludes = filter.excludes.map(wildcardToRegExp);
  const keep = (key: string): boolean =>
    (readable === undefined || readable.has(key)) && (includes.length === 0 || includes.some((re) => re.test(key))) && !excludes.some((re) => re.test(key));
  return (source) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source)) if (keep(key)) out[key] = value;
    return out;
  };
}
