/** Resolves the field names a request uses against the index definition and the caller's readable fields. */
import type { IndexDefinition, IndexField } from '../search-port';
import type { FieldRef } from './ast';
import { forbiddenField, invalid, unknownField } from './errors';

const KEYWORD_SUFFIX = '.keyword';

/** `*` matches any run of characters; everything else is literal. Used by `multi_match` and `_source`. */
export function wildcardToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

export class FieldResolver {
  private readonly byName: ReadonlyMap<string, IndexField>;

  constructor(
    private readonly index: IndexDefinition,
    private readonly readable?: ReadonlySet<string>,
  ) {
    this.byName = new Map(index.fields.map((f) => [f.name, f]));
  }

  isReadable(name: string): boolean {
    return this.readable === undefined || this.readable.has(name);
  }

  /** A declared field the caller may not read. */
  isHidden(name: string): boolean {
    return this.byName.has(name) && !this.isReadable(name);
  }

  /** `name` or, for string fields, `name.keyword`. Unknown, unreadable and `object` fields are refused. */
  resolve(name: unknown, path: string): FieldRef {
    if (typeof name !== 'string' || name.length === 0) throw invalid(path, 'type', 'a field name must be a non-empty string');
    const keyword = name.endsWith(KEYWORD_SUFFIX);
    const base = keyword ? name.slice(0, -KEYWORD_SUFFIX.length) : name;
    const field = this.byName.get(base);
    if (field === undefined || (keyword && field.type !== 'string')) throw unknownField(path, name);
    if (!this.isReadable(base)) throw forbiddenField(path, base);
    if (field.type === 'object') throw invalid(path, 'field-type', `field ${base} is an object field and cannot be queried`);
    // Ciphertext has no words: every clause compares its whole value.
    return { name: base, type: field.type, keyword: keyword || field.sensitive === true };
  }

  /** Readable string fields whose names match `pattern` (with `*`); an unreadable explicit name is refused. */
  stringFields(pattern: string, path: string): FieldRef[] {
    if (!pattern.includes('*')) {
      const ref = this.resolve(pattern, path);
      if (ref.type !== 'string') throw invalid(path, 'field-type', `field ${ref.name} is not a string field`);
      if (this.byName.get(ref.name)?.sensitive === true) throw invalid(path, 'field-type', `field ${ref.name} holds ciphertext and has no words to search`);
      return [ref];
    }
    const re = wildcardToRegExp(pattern);
    return this.index.fields
      .filter((f) => f.type === 'string' && f.sensitive !== true && re.test(f.name) && this.isReadable(f.name))
      .map((f) => ({ name: f.name, type: 'string' as const, keyword: false }));
  }
}
