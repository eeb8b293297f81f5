/**
 * Which writer schemas need their decoded values checked. avsc's decoder refuses most bad bytes itself (a long
 * beyond 2^53, an enum or union index out of range, a length past the end), but it reads an `int` as a varint of
 * any length, so bad bytes can decode to an int beyond 32 bits, or, through a resolver, to a long beyond 2^53.
 * A schema without an `int` (or a logical type, whose conversion is not avsc's) decodes only valid values, and
 * `Type.isValid` on each of them walked the whole value again for nothing: about a fifth of decoding an
 * EntityEvent.
 */
import type avro from 'avsc';

/** Types avsc reads only as valid values of themselves (or, resolved, of the reader's type). */
const SELF_CHECKING = new Set(['null', 'boolean', 'long', 'float', 'double', 'bytes', 'string', 'fixed', 'enum']);

/**
 * True when a value `type` decodes may still break its schema: check it with `isValid`. It walks the whole
 * schema, so the codec asks once per writer schema, when it fetches one.
 */
export function decodedValuesNeedCheck(type: avro.Type): boolean {
  return needsCheck(type, new Set());
}

interface Composite {
  readonly fields?: readonly { readonly type: avro.Type }[];
  readonly itemsType?: avro.Type;
  readonly valuesType?: avro.Type;
  readonly types?: readonly avro.Type[];
}

function needsCheck(type: avro.Type, seen: Set<avro.Type>): boolean {
  if (seen.has(type)) return false; // a recursive reference: its type is being walked already
  seen.add(type);
  const name = type.typeName;
  if (SELF_CHECKING.has(name)) return false;
  const composite = type as unknown as Composite;
  switch (name) {
    case 'record':
    case 'error':
      return (composite.fields ?? []).some((field) => needsCheck(field.type, seen));
    case 'array':
      return composite.itemsType === undefined || needsCheck(composite.itemsType, seen);
    case 'map':
      return composite.valuesType === undefined || needsCheck(composite.valuesType, seen);
    case 'union:unwrapped':
    case 'union:wrapped':
      return (composite.types ?? []).some((branch) => needsCheck(branch, seen));
    default:
      return true; // int, logical and abstract types, and anything this list does not know
  }
}
