/**
 * Text JSON can carry but the service cannot keep as it is, refused instead, naming where it is: lone UTF-16
 * surrogates and U+0000. JSON may spell a lone surrogate (`"\ud800"`), but no UTF-8 text can hold it: stored or
 * encrypted, it silently becomes U+FFFD, and Postgres's jsonb refuses it.
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
 * surrogate, or undefined.
 */
export const loneSurrogatePath = (value: unknown, base: string): string | undefined => firstStringPath(value, base, (text) => !isWellFormed(text));

/**
 * U+0000 (NUL). Well-formed, but PostgreSQL's text and jsonb cannot hold it, so a delta carrying one would fail every
 * statement that stores it, and stop every delta behind it. JSON text cannot hold it raw: only the escape `\u0000`
 * puts it into parsed JSON.
 */
export const mayHoldNul = (jsonText: string): boolean => jsonText.includes('\\u0000');

/** Whether PostgreSQL's text can hold `text` as it is (it holds no U+0000). */
export const storableText = (text: string): boolean => !text.includes('\u0000');

/**
 * `value` with U+0000 in its strings and keys replaced by U+FFFD, for text the service writes itself (a refusal's
 * problem quoting what it refused), never for what it was given to keep. `value` itself is returned when it holds none.
 */
export function withNulReplaced<T>(value: T): T {
  if (!mayHoldNul(JSON.stringify(value))) return value;
  return JSON.parse(JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd')) as T;
}

/** The path of the first string, object key included, that holds U+0000, or undefined. */
export const nulPath = (value: unknown, base: string): string | undefined => firstStringPath(value, base, (text) => text.includes('\u0000'));

/**
 * The path of the first value that is not an object or array, or the first object key, `holds` is true of. Its own
 * stack: nesting depth cannot overflow it.
 */
export function firstLeafPath(value: unknown, base: string, holds: (leaf: unknown) => boolean): string | undefined {
  const stack: [unknown, string][] = [[value, base]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string];
    if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push([item, extend(path, `[${i}]`)]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        const at = path === '' ? key : extend(path, `.${key}`);
        if (holds(key)) return at;
        stack.push([item, at]);
      }
    } else if (holds(node)) return path;
  }
  return undefined;
}

const firstStringPath = (value: unknown, base: string, holds: (text: string) => boolean): string | undefined =>
  firstLeafPath(value, base, (leaf) => typeof leaf === 'string' && holds(leaf));
