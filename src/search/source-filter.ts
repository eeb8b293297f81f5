/**
 * `_source` filtering (Elasticsearch's `true`/`false`/pattern/`{includes, excludes}` forms) and the caller's
 * readable fields, applied to each hit by both adapters. Patterns match top-level keys; `*` is a wildcard.
 */
import type { SourceFilter } from './dsl/ast';
import { invalid, isPlainObject } from './dsl/errors';
import { wildcardToRegExp } from './dsl/fields';

function patterns(value: unknown, path: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((p) => typeof p !== 'string')) {
    throw invalid(path, 'type', '_source patterns must be a string or an array of strings');
  }
  return list as string[];
}

export function parseSourceFilter(value: unknown, path = 'payload._source'): SourceFilter {
  if (value === undefined || value === true) return { includes: [], excludes: [] };
  if (value === false) return false;
  if (!isPlainObject(value)) return { includes: patterns(value, path), excludes: [] };
  for (const key of Object.keys(value)) {
    if (key !== 'includes' && key !== 'excludes') throw invalid(`${path}.${key}`, 'unsupported-clause', `_source option "${key}" is not supported`);
  }
  return {
    includes: value.includes === undefined ? [] : patterns(value.includes, `${path}.includes`),
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
    (readable === undefined || readable.has(key)) &&
    (includes.length === 0 || includes.some((re) => re.test(key))) &&
    !excludes.some((re) => re.test(key));
  return (source) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source)) if (keep(key)) out[key] = value;
    return out;
  };
}
