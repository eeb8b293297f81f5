/**
 * Lone UTF-16 surrogates. JSON may spell one (`"\ud800"`), but no UTF-8 text can hold it: stored or encrypted,
 * it silently becomes U+FFFD, and Postgres's jsonb refuses it. Input holding one is refused instead, naming
 * where it is.
 */

/** Only a `\u` escape of D800-DFFF can put a surrogate into parsed JSON (strict UTF-8 bytes cannot). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

export const mayHoldLoneSurrogate = (jsonText: string): boolean => SURROGATE_ESCAPE.test(jsonText);

/** Paths deeper than this end in `…`, so a refusal of deeply nested input stays short. */
const MAX_PATH_LENGTH = 256;
const extend = (path: string, part: string): string => (path.length < MAX_PATH_LENGTH ? `${path}${part}` : path.endsWith('…') ? path : `${path}…`);

/**
 * The path (`payload.name`, `payload.tags[2]`) of the first string, object key included, that holds a lone
 * surrogate, or undefined. Walks with its own stack, so nesting depth cannot overflow it.
 */
export function loneSurrogatePath(value: unknown, base: string): string | undefined {
  const stack: [unknown, string][] = [[value, base]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string];
    if (typeof node === 'string') {
      if (!isWellFormed(node)) return path;
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push([item, extend(path, `[${i}]`)]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        const at = path === '' ? key : extend(path, `.${key}`);
        if (!isWellFormed(key)) return at;
        stack.push([item, at]);
      }
    }
  }
  return undefined;
}
